import { randomBytes } from 'node:crypto';
import type { SecretBox } from '#shared/keys/key-store.ts';
import type { KeyWrapper } from '#shared/keys/key-wrapper.ts';
import { secretBox } from '#shared/keys/secret-box.ts';

/** No wrapped values in these tests: everything is sealed under the data key. */
const noWrapper: KeyWrapper = {
  kind: 'local',
  wrap: () => Promise.reject(new Error('no key wrapper in this test')),
  unwrap: () => Promise.reject(new Error('no key wrapper in this test')),
};

/**
 * The service's SecretBox (AES-256-GCM under a data key) with a random data key per box, for tests
 * that need no key services. Opening with another box's key fails, as in production.
 */
export function aesSecretBox(key: Buffer = randomBytes(32)): SecretBox {
  return secretBox(noWrapper, async () => key);
}
