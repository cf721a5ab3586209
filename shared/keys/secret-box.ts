import { internalError } from '../errors.ts';
import { contexts, type KeyWrapper } from './key-wrapper.ts';
import type { SecretBox } from './key-store.ts';

/** Says which wrapper sealed a value, so a value from another mode fails with a clear reason. */
const PREFIX = { kms: 'kms1.', local: 'local1.' } as const;

/** KMS Encrypt takes at most 4096 bytes of plaintext. */
const MAX_PLAINTEXT_BYTES = 4096;

/**
 * Secrets at rest (client secrets, HS256 signing secrets): KMS Encrypt/Decrypt in AWS, AES-256-GCM
 * under the master key locally, both bound to the context `{purpose: secret-box}`.
 */
export function secretBox(wrapper: KeyWrapper): SecretBox {
  const prefix = PREFIX[wrapper.kind];
  return {
    async seal(plaintext) {
      const bytes = Buffer.from(plaintext, 'utf8');
      if (bytes.length > MAX_PLAINTEXT_BYTES) throw internalError({ detail: `secret too large to seal (${bytes.length} bytes)` });
      return prefix + (await wrapper.wrap(bytes, contexts.secretBox()));
    },
    async open(sealed) {
      if (!sealed.startsWith(prefix)) throw internalError({ detail: `sealed value is not a ${wrapper.kind} secret (KEY_MODE changed?)` });
      return (await wrapper.unwrap(sealed.slice(prefix.length), contexts.secretBox())).toString('utf8');
    },
  };
}
