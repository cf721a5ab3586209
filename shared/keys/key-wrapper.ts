/**
 * Names what a wrapped value is for; bound to the ciphertext (KMS encryption context, AES-GCM
 * additional data) so a value wrapped for one purpose cannot be opened as another.
 */
export type WrapContext = Readonly<Record<string, string>>;

/**
 * Wraps small secrets under the service's key-encryption key: KMS (`envelope`, `kms-sign`) or the
 * local AES-256-GCM master key (`local`). The wrapped form is a base64url string for the table.
 */
export interface KeyWrapper {
  readonly kind: 'kms' | 'local';
  wrap(plaintext: Uint8Array, context: WrapContext): Promise<string>;
  unwrap(wrapped: string, context: WrapContext): Promise<Buffer>;
}

/** Encryption contexts of the service (one place, so a change of name is a visible change). */
export const contexts = {
  signingKey: (alg: string): WrapContext => ({ purpose: 'signing-key', alg }),
  secretBox: (): WrapContext => ({ purpose: 'secret-box' }),
  serviceSecret: (name: string): WrapContext => ({ purpose: 'service-secret', name }),
};
