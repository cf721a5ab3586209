import { ASYMMETRIC_ALGS } from '../keys/jwk.ts';
import { type RotationResult, rotateKeys } from '../keys/rotate-keys.ts';
import { SECRET_BOX_DATA_KEY } from '../keys/secret-box.ts';
import { signingKeysRepository } from '../keys/signing-keys-repository.ts';
import type { Runtime } from '../runtime.ts';

/**
 * The service secrets request-path functions read but may not create (their roles have no
 * kms:Encrypt): the cursor key, the secret box's data key, and the hosted pages' CSRF key
 * (shared/html/csrf.ts).
 */
export const SERVICE_SECRETS = ['cursor', SECRET_BOX_DATA_KEY, 'hosted-pages'] as const;

export type FirstSigningKeys = Pick<RotationResult, 'alg' | 'action' | 'current' | 'next'>[];

/**
 * The keys a stage needs before its first request, made at bootstrap, in AWS (deploy) and locally
 * (`npm start`) alike: the service secrets, and the first ES256 and RS256 signing keys, so the
 * JWKS holds the current key from the first start (docs/contract.md §8) and no relying party caches an
 * empty set. Keys only for algorithms that have none yet: this never rotates (that waits for the
 * next key's publication time, and is the schedule's job). Idempotent.
 */
export async function ensureStageKeys(runtime: Pick<Runtime, 'config' | 'db' | 'now' | 'serviceSecret'>): Promise<FirstSigningKeys> {
  const { config, db, now } = runtime;
  for (const name of SERVICE_SECRETS) await runtime.serviceSecret(name);
  const partition = await signingKeysRepository(db, config.tableName).load();
  const missing = ASYMMETRIC_ALGS.filter((alg) => !partition.states.has(alg));
  if (missing.length === 0) return [];
  const results = await rotateKeys({ config, db, now, algs: missing });
  return results.map(({ alg, action, current, next }) => ({ alg, action, ...(current ? { current } : {}), ...(next ? { next } : {}) }));
}
