import type { JWK } from 'jose';
import { TABLE_KEYS } from '../store/core/table-definition.ts';
import { keys } from '../store/core/table-keys.ts';
import { ASYMMETRIC_ALGS, isAsymmetricAlg } from './jwk.ts';
import type { AsymmetricAlg, KeyStatus } from './key-store.ts';
import type { KeyPartition, KeyStateRecord, SigningKeyRecord } from './signing-key-records.ts';

type Item = Record<string, unknown>;

/**
 * The stored shapes of partition `SIGNING_KEYS` (docs/keys.md, "What is stored") and their
 * parsing. Kept apart from the repository because the token path parses state items it read
 * itself (KeyStateFeed), without the repository's reads.
 */

/** Keys of the state items, one per algorithm: all a signer needs to read (docs/keys.md, "One read"). */
export const stateItemKeys = (): { PK: string; SK: string }[] => ASYMMETRIC_ALGS.map((alg) => keys.signingKeyState(alg));

/** The `KEY#{kid}` item: history, TTL and people reading the table. */
export function keyItem(r: SigningKeyRecord): Item {
  return {
    ...keys.signingKey(r.kid),
    type: 'SigningKey',
    schema_version: 1,
    kid: r.kid,
    alg: r.alg,
    jwk: r.jwk,
    wrapped_private_key: r.wrappedPrivateKey,
    wrapped_by: r.wrappedBy,
    kms_key_id: r.kmsKeyId,
    status: r.status,
    created_at: r.createdAt,
    activated_at: r.activatedAt,
    retired_at: r.retiredAt,
    [TABLE_KEYS.ttlAttribute]: r.ttl,
  };
}

/**
 * The `ALG#{alg}` item. Schema 2 embeds, under `keys`, the record of every key the state names, so
 * the item alone is a complete snapshot of its algorithm (status comes from the state, the TTL of a
 * previous key is its `expires_at`; neither is repeated). Schema 1 items (no `keys`) predate this.
 */
export function stateItem(
  alg: AsymmetricAlg,
  s: Omit<KeyStateRecord, 'version' | 'alg'>,
  version: number,
  at: string,
  named: readonly SigningKeyRecord[],
): Item {
  return {
    ...keys.signingKeyState(alg),
    type: 'SigningKeyState',
    schema_version: 2,
    alg,
    current_kid: s.currentKid,
    next_kid: s.nextKid,
    previous: s.previous.map((p) => ({ kid: p.kid, retired_at: p.retiredAt, expires_at: p.expiresAt })),
    keys: Object.fromEntries(
      named.map((r) => [
        r.kid,
        {
          jwk: r.jwk,
          wrapped_private_key: r.wrappedPrivateKey,
          wrapped_by: r.wrappedBy,
          kms_key_id: r.kmsKeyId,
          created_at: r.createdAt,
          activated_at: r.activatedAt,
          retired_at: r.retiredAt,
        },
      ]),
    ),
    version,
    updated_at: at,
  };
}

/** The kids a state names, current first. */
export const namedKids = (s: Omit<KeyStateRecord, 'version' | 'alg'>): string[] => [
  s.currentKid,
  ...(s.nextKid ? [s.nextKid] : []),
  ...s.previous.map((p) => p.kid),
];

export const isStateItem = (item: Item): boolean => item.type === 'SigningKeyState';

/** Does this state item carry its keys (schema 2)? */
export const embedsKeys = (item: Item): boolean => typeof item.keys === 'object' && item.keys !== null && !Array.isArray(item.keys);

/**
 * The partition as told by state items alone (from `load()` or from someone else's read of
 * `stateItemKeys()`): undefined when a present state item does not embed its keys (or does not
 * parse), so the caller reads the partition instead. No state item at all is a valid, empty answer:
 * no keys exist yet. Other items are ignored, so a caller may pass a whole BatchGetItem response.
 */
export function partitionOfStates(items: readonly Item[]): KeyPartition | undefined {
  const wanted = new Set(stateItemKeys().map((k) => k.SK));
  const states = new Map<AsymmetricAlg, KeyStateRecord>();
  const records = new Map<string, SigningKeyRecord>();
  for (const item of items) {
    if (item.PK !== keys.signingKeysPartition || !wanted.has(item.SK as string)) continue;
    const state = isStateItem(item) && embedsKeys(item) ? toState(item) : undefined;
    if (!state) return undefined;
    states.set(state.alg, state);
    for (const [kid, embedded] of Object.entries(item.keys as Record<string, Item>)) {
      const record = toKey({ ...embedded, kid, alg: state.alg, ...derived(state, kid) });
      if (record) records.set(kid, record);
    }
  }
  return { states, keys: records, legacyStates: new Set() };
}

/** Status and TTL of an embedded key: what its `KEY#` item says too, derived from the state. */
function derived(state: KeyStateRecord, kid: string): Item {
  if (kid === state.currentKid) return { status: 'current' };
  if (kid === state.nextKid) return { status: 'next' };
  const prev = state.previous.find((p) => p.kid === kid);
  return { status: 'previous', [TABLE_KEYS.ttlAttribute]: prev?.expiresAt };
}

export function toState(item: Item): KeyStateRecord | undefined {
  if (!isAsymmetricAlg(item.alg) || typeof item.current_kid !== 'string' || typeof item.version !== 'number') return undefined;
  const previous = Array.isArray(item.previous) ? (item.previous as Item[]) : [];
  return {
    alg: item.alg,
    currentKid: item.current_kid,
    nextKid: typeof item.next_kid === 'string' ? item.next_kid : undefined,
    previous: previous
      .filter((p) => typeof p.kid === 'string' && typeof p.expires_at === 'number')
      .map((p) => ({ kid: p.kid as string, retiredAt: String(p.retired_at), expiresAt: p.expires_at as number })),
    version: item.version,
  };
}

export function toKey(item: Item): SigningKeyRecord | undefined {
  if (!isAsymmetricAlg(item.alg) || typeof item.kid !== 'string' || typeof item.jwk !== 'object' || item.jwk === null) return undefined;
  const wrappedBy = item.wrapped_by === 'local' || item.wrapped_by === 'kms-sign' ? item.wrapped_by : 'kms';
  if (wrappedBy !== 'kms-sign' && typeof item.wrapped_private_key !== 'string') return undefined;
  const ttl = item[TABLE_KEYS.ttlAttribute];
  return {
    kid: item.kid,
    alg: item.alg,
    jwk: item.jwk as JWK,
    wrappedPrivateKey: typeof item.wrapped_private_key === 'string' ? item.wrapped_private_key : undefined,
    wrappedBy,
    kmsKeyId: typeof item.kms_key_id === 'string' ? item.kms_key_id : undefined,
    status: item.status as KeyStatus,
    createdAt: String(item.created_at),
    activatedAt: typeof item.activated_at === 'string' ? item.activated_at : undefined,
    retiredAt: typeof item.retired_at === 'string' ? item.retired_at : undefined,
    ttl: typeof ttl === 'number' ? ttl : undefined,
  };
}
