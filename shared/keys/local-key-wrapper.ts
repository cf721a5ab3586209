import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { internalError } from '../errors.ts';
import type { KeyWrapper, WrapContext } from './key-wrapper.ts';

const VERSION = 1;
const IV_BYTES = 12; // NIST SP 800-38D §8.2: 96-bit random IVs
const TAG_BYTES = 16;

/** The context as AES-GCM additional data: sorted keys, so the same context always gives the same bytes. */
const aad = (context: WrapContext) =>
  Buffer.from(
    JSON.stringify(
      Object.keys(context)
        .sort()
        .map((k) => [k, context[k]]),
    ),
  );

/**
 * Local mode's KMS: AES-256-GCM under the master key file. Format (base64url):
 * version (1 byte) | IV (12) | tag (16) | ciphertext. The context is authenticated, not stored.
 */
export function localKeyWrapper(masterKey: () => Buffer): KeyWrapper {
  return {
    kind: 'local',
    async wrap(plaintext: Uint8Array, context: WrapContext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', masterKey(), iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(context));
      const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ct]).toString('base64url');
    },
    async unwrap(wrapped: string, context: WrapContext) {
      const buf = Buffer.from(wrapped, 'base64url');
      if (buf.length < 1 + IV_BYTES + TAG_BYTES || buf[0] !== VERSION) {
        throw internalError({ detail: 'local unwrap: not a wrapped value of this service' });
      }
      const iv = buf.subarray(1, 1 + IV_BYTES);
      const tag = buf.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      try {
        const decipher = createDecipheriv('aes-256-gcm', masterKey(), iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad(context));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(buf.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
      } catch (err) {
        // Wrong master key file or wrong purpose: a configuration problem, never a client's.
        throw internalError({ cause: err, detail: 'local unwrap failed (other master key or context)' });
      }
    },
  };
}
