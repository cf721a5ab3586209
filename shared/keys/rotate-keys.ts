import type { KMSClient } from '@aws-sdk/client-kms';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../config.ts';
import { ASYMMETRIC_ALGS } from './jwk.ts';
import { createKeyBackend } from './key-backend.ts';
import type { KeyPairSource } from './key-pair-source.ts';
import type { AsymmetricAlg } from './key-store.ts';
import { NEXT_KEY_MIN_PUBLISHED_SECONDS, RETIRE_MARGIN_SECONDS } from './key-timing.ts';
import { newSigningKey } from './new-signing-key.ts';
import { registerKmsSigningKey } from './register-kms-signing-key.ts';
import { type RotationWrite, type SigningKeysRepository, signingKeysRepository } from './signing-keys-repository.ts';

export interface RotateKeysOptions {
  config: Config;
  db: DynamoDBDocumentClient;
  now: () => Date;
  kms?: KMSClient;
  /** Wraps the KMS client built here (X-Ray, shared/observability/tracing.ts). */
  capture?: <C>(client: C) => C;
  /** Default: both algorithms, so the first run also creates the keys (the token path then never needs GenerateDataKeyPair). */
  algs?: readonly AsymmetricAlg[];
  /** Promote the next key even if it has been published for less than NEXT_KEY_MIN_PUBLISHED_SECONDS (local use). */
  force?: boolean;
}

export interface RotationResult {
  alg: AsymmetricAlg;
  /** `created`: first keys; `rotated`: next→current→previous; `published-next`: a missing next key added; `skipped`: see reason. */
  action: 'created' | 'rotated' | 'published-next' | 'skipped';
  reason?: string;
  current?: string;
  next?: string;
  previous: string[];
  /** Previous keys whose tokens have all expired, removed now. */
  deleted: string[];
}

/**
 * Key rotation (docs/design.md §4, docs/keys.md). Per algorithm: the `next` key (already in the JWKS for
 * at least NEXT_KEY_MIN_PUBLISHED_SECONDS, so relying parties have it) becomes `current`; the old
 * current becomes `previous` and stops signing, but stays published until every token it signed has
 * expired (KEY_RETIRE_AFTER_SECONDS + RETIRE_MARGIN_SECONDS; then TTL deletes it and reads ignore
 * it); a new `next` is published. Each change is one transaction conditioned on the alg's state
 * version, so concurrent runs cannot both rotate; the new state item carries the keys it names.
 * Signers see the change at their next read of the state items (within KEY_CACHE_TTL_SECONDS).
 */
export async function rotateKeys(options: RotateKeysOptions): Promise<RotationResult[]> {
  const { config, db, now } = options;
  const algs = options.algs ?? ASYMMETRIC_ALGS;
  const repo = signingKeysRepository(db, config.tableName);
  const backend = createKeyBackend(config, options.kms, options.capture);
  if (config.keyMode === 'kms-sign') return registerOnly(options, repo, backend.kms(), algs);
  const source = backend.pairs;
  const results: RotationResult[] = [];
  for (const alg of algs) {
    results.push(
      await rotateAlg({ repo, source, alg, at: now(), retireAfterSeconds: config.keyRetireAfterSeconds, force: options.force ?? false }),
    );
  }
  return results;
}

interface AlgRotation {
  repo: SigningKeysRepository;
  source: KeyPairSource;
  alg: AsymmetricAlg;
  at: Date;
  retireAfterSeconds: number;
  force: boolean;
}

async function rotateAlg({ repo, source, alg, at, retireAfterSeconds, force }: AlgRotation): Promise<RotationResult> {
  // The Query, not just the state items: this run updates and puts key items on condition that
  // they do (not) exist, so it must see which do (a lost `next` item is re-published below).
  const partition = await repo.loadPartition();
  const state = partition.states.get(alg);
  const iso = at.toISOString();
  const nowS = at.getTime() / 1000;

  if (!state) {
    const [current, next] = await Promise.all([newSigningKey(source, alg, 'current', at), newSigningKey(source, alg, 'next', at)]);
    if (!(await repo.createInitial(alg, current, next))) return lost(alg);
    return { alg, action: 'created', current: current.kid, next: next.kid, previous: [], deleted: [] };
  }

  const live = state.previous.filter((p) => p.expiresAt > nowS);
  const expired = state.previous.filter((p) => p.expiresAt <= nowS).map((p) => p.kid);
  const base = {
    alg,
    expectedVersion: state.version,
    put: [],
    update: [],
    delete: expired,
    at: iso,
    records: partition.keys,
  } satisfies Partial<RotationWrite>;
  const nextRecord = state.nextKid ? partition.keys.get(state.nextKid) : undefined;

  if (!nextRecord) {
    // No next key (never published, or lost): publish one now; it signs from the next run on.
    const next = await newSigningKey(source, alg, 'next', at);
    const ok = await repo.write({ ...base, state: { currentKid: state.currentKid, nextKid: next.kid, previous: live }, put: [next] });
    if (!ok) return lost(alg);
    return { alg, action: 'published-next', current: state.currentKid, next: next.kid, previous: live.map((p) => p.kid), deleted: expired };
  }

  const publishedFor = nowS - Date.parse(nextRecord.createdAt) / 1000;
  if (!force && publishedFor < NEXT_KEY_MIN_PUBLISHED_SECONDS) {
    // Relying parties may not have fetched the next key yet: promoting it now could break them.
    if (
      expired.length > 0 &&
      !(await repo.write({ ...base, state: { currentKid: state.currentKid, nextKid: nextRecord.kid, previous: live } }))
    )
      return lost(alg);
    return {
      alg,
      action: 'skipped',
      reason: `the next key has been published for ${Math.floor(publishedFor)} s; it may sign after ${NEXT_KEY_MIN_PUBLISHED_SECONDS} s`,
      current: state.currentKid,
      next: nextRecord.kid,
      previous: live.map((p) => p.kid),
      deleted: expired,
    };
  }

  // The old current key signs until this moment (and in containers, until their cache expires);
  // its tokens live at most retireAfterSeconds; the margin covers those caches and clock skew.
  const expiresAt = Math.ceil(nowS + retireAfterSeconds + RETIRE_MARGIN_SECONDS);
  const hadCurrent = partition.keys.has(state.currentKid);
  const previous = hadCurrent ? [{ kid: state.currentKid, retiredAt: iso, expiresAt }, ...live] : live;
  const newNext = await newSigningKey(source, alg, 'next', at);
  const ok = await repo.write({
    ...base,
    state: { currentKid: nextRecord.kid, nextKid: newNext.kid, previous },
    put: [newNext],
    update: [
      ...(hadCurrent ? [{ kid: state.currentKid, status: 'previous' as const, at: iso, ttl: expiresAt }] : []),
      { kid: nextRecord.kid, status: 'current' as const, at: iso },
    ],
  });
  if (!ok) return lost(alg);
  return { alg, action: 'rotated', current: nextRecord.kid, next: newNext.kid, previous: previous.map((p) => p.kid), deleted: expired };
}

/**
 * kms-sign mode has one key, in KMS: nothing to rotate. The run still registers the configured key
 * in the table (so the JWKS has it before the first token) and records a KMS_SIGNING_KEY_ID change.
 */
async function registerOnly(
  options: RotateKeysOptions,
  repo: SigningKeysRepository,
  kms: KMSClient,
  algs: readonly AsymmetricAlg[],
): Promise<RotationResult[]> {
  const { config, now } = options;
  const results: RotationResult[] = [];
  for (const alg of algs) {
    if (alg !== 'ES256') {
      results.push({ alg, action: 'skipped', reason: 'kms-sign mode signs ES256 only', previous: [], deleted: [] });
      continue;
    }
    const keyId = config.kmsSigningKeyId;
    if (!keyId) throw new Error('KMS_SIGNING_KEY_ID is required when KEY_MODE is kms-sign');
    const r = await registerKmsSigningKey({ kms, keyId, repo, now, retireAfterSeconds: config.keyRetireAfterSeconds });
    results.push({
      alg,
      action: r.action === 'created' ? 'created' : r.action === 'switched' ? 'rotated' : 'skipped',
      ...(r.action === 'unchanged'
        ? { reason: 'kms-sign mode: the key lives in KMS; rotate by pointing KMS_SIGNING_KEY_ID at a new key (docs/keys.md)' }
        : {}),
      current: r.entry.kid,
      previous: r.previous ? [r.previous] : [],
      deleted: [],
    });
  }
  return results;
}

const lost = (alg: AsymmetricAlg): RotationResult => ({
  alg,
  action: 'skipped',
  reason: 'a concurrent change to the keys won; nothing was changed by this run',
  previous: [],
  deleted: [],
});
