import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { ASYMMETRIC_ALGS } from './jwk.ts';
import type { AsymmetricAlg, KeyStatus, PublicKeyEntry } from './key-store.ts';
import type { KeyPartition, SigningKeyRecord } from './signing-keys-repository.ts';

export interface SnapshotKey {
  entry: PublicKeyEntry;
  record: SigningKeyRecord;
  /** Epoch ms after which a previous key is no longer published (and no longer verifies). */
  expiresAt: number | undefined;
}

/** What one read of the keys (state items, or the partition for old ones) says, as of `loadedAt` (epoch ms of the injected clock). */
export interface KeySnapshot {
  loadedAt: number;
  current: ReadonlyMap<AsymmetricAlg, SnapshotKey>;
  /** Every published key: current, next and unexpired previous keys, in JWKS order. */
  published: readonly SnapshotKey[];
  byKid: ReadonlyMap<string, SnapshotKey>;
  /** Algorithms that have a state item (keys were created for them). */
  algs: ReadonlySet<AsymmetricAlg>;
}

/** Public KeyObjects by kid, kept across refreshes (a key's public half never changes). */
export type PublicKeyCache = Map<string, KeyObject>;

/**
 * Builds the published view from the partition. The state item decides each key's status; a key
 * the state names but whose item this read missed is left out until the next read. Expired
 * previous keys are dropped here (and again at lookup), whatever TTL has or has not deleted yet.
 */
export function buildSnapshot(partition: KeyPartition, loadedAt: number, cache: PublicKeyCache): KeySnapshot {
  const current = new Map<AsymmetricAlg, SnapshotKey>();
  const published: SnapshotKey[] = [];
  const seen = new Set<string>();
  const add = (kid: string | undefined, status: KeyStatus, expiresAt?: number): SnapshotKey | undefined => {
    const record = kid ? partition.keys.get(kid) : undefined;
    if (!record || seen.has(record.kid)) return undefined;
    if (expiresAt !== undefined && expiresAt <= loadedAt) return undefined;
    let key = cache.get(record.kid);
    if (!key) {
      key = createPublicKey({ key: record.jwk as JsonWebKey, format: 'jwk' });
      cache.set(record.kid, key);
    }
    const entry: PublicKeyEntry = { kid: record.kid, alg: record.alg, status, jwk: record.jwk, key };
    const sk: SnapshotKey = { entry, record, expiresAt };
    seen.add(record.kid);
    published.push(sk);
    return sk;
  };
  for (const alg of ASYMMETRIC_ALGS) {
    const state = partition.states.get(alg);
    if (!state) continue;
    const cur = add(state.currentKid, 'current');
    if (cur) current.set(alg, cur);
    add(state.nextKid, 'next');
    for (const p of [...state.previous].sort((a, b) => b.expiresAt - a.expiresAt)) add(p.kid, 'previous', p.expiresAt * 1000);
  }
  for (const kid of cache.keys()) if (!seen.has(kid)) cache.delete(kid);
  return { loadedAt, current, published, byKid: new Map(published.map((k) => [k.entry.kid, k])), algs: new Set(partition.states.keys()) };
}

/** Still published at `now`? (a previous key expires between two reads too). */
export const isPublished = (k: SnapshotKey, now: number): boolean => k.expiresAt === undefined || k.expiresAt > now;
