/**
 * Encrypts small secrets at rest (client secrets, HS256 signing secrets, TOTP secrets). A port: the
 * store seals and opens through it, keys/ implements it (docs/keys.md).
 */
export interface SecretBox {
  seal(plaintext: string): Promise<string>;
  open(sealed: string): Promise<string>;
  /** Sealed in the current format (under the data key); false: an older value the bootstrap reseals. */
  isCurrent(sealed: string): boolean;
}
