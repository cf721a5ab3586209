import { createPublicKey } from 'node:crypto';
import { GetPublicKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { internalError, serviceUnavailable } from '../errors.ts';
import { jwkOfSpki, kidOf, publicJwk } from './jwk.ts';
import type { PublicKeyEntry } from './key-store.ts';
import { RETIRE_MARGIN_SECONDS } from './key-timing.ts';
import type { SigningKeyRecord, SigningKeysRepository } from './signing-keys-repository.ts';
import { translateKmsError } from './translate-kms-error.ts';

export interface KmsSigningKeyRegistration {
  entry: PublicKeyEntry;
  /** `unchanged`: already current; `created`: first key; `switched`: KMS_SIGNING_KEY_ID changed, the old key is now previous. */
  action: 'unchanged' | 'created' | 'switched';
  previous: string | undefined;
}

export interface RegisterOptions {
  kms: KMSClient;
  keyId: string;
  repo: SigningKeysRepository;
  now: () => Date;
  retireAfterSeconds: number;
}

/**
 * kms-sign mode: makes the KMS key (`GetPublicKey`, once) the current ES256 key in the table, so
 * every verifier and the JWKS read it from the table like any other key and need no KMS
 * permission. When KMS_SIGNING_KEY_ID changed, the old key becomes `previous` and stays published
 * for the retire period, as after a rotation. One conditional transaction, as everywhere.
 */
export async function registerKmsSigningKey({
  kms,
  keyId,
  repo,
  now,
  retireAfterSeconds,
}: RegisterOptions): Promise<KmsSigningKeyRegistration> {
  const entry = await fetchKmsPublicKey(kms, keyId);
  for (let attempt = 0; attempt < 3; attempt++) {
    // The whole partition, not just the state: the key's item may still exist though no state
    // names it (an expired previous key that TTL has not deleted yet), and must then be updated, not put.
    const partition = await repo.loadPartition();
    const state = partition.states.get('ES256');
    const exists = partition.keys.has(entry.kid);
    if (state?.currentKid === entry.kid && exists) return { entry, action: 'unchanged', previous: undefined };
    const at = now();
    const iso = at.toISOString();
    const record: SigningKeyRecord = {
      kid: entry.kid,
      alg: 'ES256',
      jwk: entry.jwk,
      wrappedBy: 'kms-sign',
      kmsKeyId: keyId,
      status: 'current',
      createdAt: iso,
      activatedAt: iso,
    };
    if (!state) {
      if (await repo.createInitial('ES256', record)) return { entry, action: 'created', previous: undefined };
      continue;
    }
    const nowS = at.getTime() / 1000;
    const old = state.currentKid !== entry.kid && partition.keys.has(state.currentKid) ? state.currentKid : undefined;
    const expiresAt = Math.ceil(nowS + retireAfterSeconds + RETIRE_MARGIN_SECONDS);
    const live = state.previous.filter((p) => p.expiresAt > nowS && p.kid !== entry.kid);
    const ok = await repo.write({
      alg: 'ES256',
      expectedVersion: state.version,
      state: { currentKid: entry.kid, nextKid: undefined, previous: old ? [{ kid: old, retiredAt: iso, expiresAt }, ...live] : live },
      put: exists ? [] : [record],
      update: [
        ...(old ? [{ kid: old, status: 'previous' as const, at: iso, ttl: expiresAt }] : []),
        ...(exists ? [{ kid: entry.kid, status: 'current' as const, at: iso }] : []),
      ],
      delete: state.previous.filter((p) => p.expiresAt <= nowS && p.kid !== entry.kid).map((p) => p.kid),
      at: iso,
      records: partition.keys,
    });
    if (ok) return { entry, action: 'switched', previous: old };
  }
  throw serviceUnavailable({ detail: 'could not register the KMS signing key (concurrent changes)' });
}

/** The public half of the KMS signing key; it must be an ECC_NIST_P256 SIGN_VERIFY key (ES256). */
export async function fetchKmsPublicKey(kms: KMSClient, keyId: string): Promise<PublicKeyEntry> {
  let out;
  try {
    out = await kms.send(new GetPublicKeyCommand({ KeyId: keyId }));
  } catch (err) {
    return translateKmsError(err, 'GetPublicKey');
  }
  if (!out.PublicKey || out.KeySpec !== 'ECC_NIST_P256' || out.KeyUsage !== 'SIGN_VERIFY') {
    throw internalError({ detail: `KMS_SIGNING_KEY_ID must be an ECC_NIST_P256 SIGN_VERIFY key (got ${out.KeySpec}/${out.KeyUsage})` });
  }
  const raw = jwkOfSpki(out.PublicKey);
  const kid = await kidOf(raw);
  return {
    kid,
    alg: 'ES256',
    status: 'current',
    jwk: publicJwk(raw, kid, 'ES256'),
    key: createPublicKey({ key: Buffer.from(out.PublicKey), format: 'der', type: 'spki' }),
  };
}
