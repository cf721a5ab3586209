import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { internalError } from '../errors.ts';
import type { SecretBox } from './key-store.ts';
import { contexts, type KeyWrapper } from './key-wrapper.ts';

/** The service secret that is the secret box's data key (created by the stage bootstrap). */
export const SECRET_BOX_DATA_KEY = 'secret-box';

/** Sealed under the data key: `dk1.` + base64url(IV ‖ AES-256-GCM ciphertext ‖ tag). */
const DATA_KEY_PREFIX = 'dk1.';
/** Earlier format, one KMS Encrypt/Decrypt per value: still opened, never written. */
const WRAPPED_PREFIX = { kms: 'kms1.', local: 'local1.' } as const;

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bound to every sealed value: a value sealed for something else under the same key does not open. */
const AAD = Buffer.from('secret-box/dk1');
/** As before (KMS Encrypt's limit): client and HS256 secrets are far below it. */
const MAX_PLAINTEXT_BYTES = 4096;

/**
 * Secrets at rest (client secrets, HS256 signing secrets), sealed with AES-256-GCM under a data
 * key: the service secret `secret-box`, itself wrapped by KMS (or the local master key) and opened
 * once per container, as the signing keys are (docs/keys.md "Secrets at rest"). So sealing and
 * opening cost no KMS call on a warm container, whatever the number of secrets: a list page of 50
 * clients revealed to `read:client_keys` opens 50 secrets in memory.
 *
 * Values of the earlier format (`kms1.`/`local1.`: each wrapped on its own with context
 * `{purpose: secret-box}`) still open, at one KMS Decrypt each; the bootstrap reseals them
 * (reseal-secrets.ts), and `isCurrent` tells them apart.
 */
export function secretBox(wrapper: KeyWrapper, dataKey: () => Promise<Buffer>): SecretBox {
  const legacyPrefix = WRAPPED_PREFIX[wrapper.kind];
  return {
    async seal(plaintext) {
      const bytes = Buffer.from(plaintext, 'utf8');
      if (bytes.length > MAX_PLAINTEXT_BYTES) throw internalError({ detail: `secret too large to seal (${bytes.length} bytes)` });
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', await dataKey(), iv).setAAD(AAD);
      return DATA_KEY_PREFIX + Buffer.concat([iv, cipher.update(bytes), cipher.final(), cipher.getAuthTag()]).toString('base64url');
    },
    async open(sealed) {
      if (sealed.startsWith(DATA_KEY_PREFIX)) {
        const raw = Buffer.from(sealed.slice(DATA_KEY_PREFIX.length), 'base64url');
        try {
          const decipher = createDecipheriv('aes-256-gcm', await dataKey(), raw.subarray(0, IV_BYTES)).setAAD(AAD);
          decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
          return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
        } catch (err) {
          throw internalError({ detail: "sealed secret does not open under the data key (another stage's value, or damaged)", cause: err });
        }
      }
      if (!sealed.startsWith(legacyPrefix))
        throw internalError({ detail: `sealed value is not a ${wrapper.kind} secret (KEY_MODE changed?)` });
      return (await wrapper.unwrap(sealed.slice(legacyPrefix.length), contexts.secretBox())).toString('utf8');
    },
    isCurrent: (sealed) => sealed.startsWith(DATA_KEY_PREFIX),
  };
}
