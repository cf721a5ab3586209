import type { KeyObject } from 'node:crypto';
import { createJwsEncoder, signInput } from '../crypto/jws.ts';
import { internalError, serviceUnavailable } from '../errors.ts';
import { logger } from '../logger.ts';
import type { CacheCounter } from '../observability/service-metrics.ts';
import { jwkOfKey, samePublicKey } from './jwk.ts';
import { createKeyCache } from './key-cache.ts';
import type { KeyPairSource } from './key-pair-source.ts';
import type { KeySnapshot, SnapshotKey } from './key-snapshot.ts';
import type { AsymmetricAlg, KeyStateFeed, KeyStore } from './key-store.ts';
import { newSigningKey } from './new-signing-key.ts';
import { partitionOfStates, stateItemKeys } from './signing-key-items.ts';
import type { SigningKeyRecord, SigningKeysRepository } from './signing-keys-repository.ts';

export interface TableKeyStoreOptions {
  repo: SigningKeysRepository;
  source: KeyPairSource;
  now: () => Date;
  /** How long a read of the keys is trusted (KEY_CACHE_TTL_SECONDS). */
  cacheTtlMs: number;
  missRefreshMs?: number;
  /** Counts the key cache's lookups (shared/observability/service-metrics.ts). */
  countLookup?: CacheCounter;
}

/**
 * The key store of `envelope` and `local` modes: keys live wrapped in the table, a container reads
 * the two state items (one BatchGetItem, which carries every key they name) at most every
 * `cacheTtlMs`, or none when the token path folded them into its own read (`stateFeed`); it opens
 * the private key of each current key it signs with once (one KMS Decrypt in envelope mode) and
 * then signs in memory. After a rotation the next read names another current key; only then is
 * another Decrypt needed.
 */
export function tableKeyStore(opts: TableKeyStoreOptions): KeyStore {
  const { repo, source, now } = opts;
  const encoder = createJwsEncoder();
  /** Private keys of current keys only, by kid (a demoted key is dropped at the next read). */
  const privateKeys = new Map<string, KeyObject>();
  const unwrapping = new Map<string, Promise<KeyObject>>();
  const creating = new Map<AsymmetricAlg, Promise<void>>();
  /** The snapshot last installed from `stateFeed.offer` (see `currentKey`). */
  let fed: KeySnapshot | undefined;
  const cache = createKeyCache({
    ...opts,
    onRefresh: (snap) => {
      const signing = new Set([...snap.current.values()].map((k) => k.entry.kid));
      for (const kid of privateKeys.keys()) if (!signing.has(kid)) privateKeys.delete(kid);
    },
  });

  const unwrap = (record: SigningKeyRecord): Promise<KeyObject> => {
    const have = privateKeys.get(record.kid);
    if (have) return Promise.resolve(have);
    let pending = unwrapping.get(record.kid);
    if (!pending) {
      pending = openPrivateKey(source, record)
        .then((key) => {
          privateKeys.set(record.kid, key);
          return key;
        })
        .finally(() => unwrapping.delete(record.kid));
      unwrapping.set(record.kid, pending);
    }
    return pending;
  };

  /** First keys of an alg (first token ever): a current and a next key, race-safe (docs/design.md §3.7). */
  const createFirstKeys = (alg: AsymmetricAlg): Promise<void> => {
    let pending = creating.get(alg);
    if (!pending) {
      pending = (async () => {
        const at = now();
        const [cur, next] = await Promise.all([newSigningKey(source, alg, 'current', at), newSigningKey(source, alg, 'next', at)]);
        const won = await repo.createInitial(alg, cur, next);
        // A lost race is normal: the next read returns the winner's keys and this pair is dropped.
        logger.info('signing keys created', { alg, kid: cur.kid, next_kid: next.kid, won });
      })().finally(() => creating.delete(alg));
      creating.set(alg, pending);
    }
    return pending;
  };

  const currentKey = async (alg: AsymmetricAlg): Promise<SnapshotKey> => {
    for (let attempt = 0; attempt < 4; attempt++) {
      const snap = attempt === 0 ? await cache.current() : await cache.refresh();
      const cur = snap.current.get(alg);
      if (cur) return cur;
      // Keys are made only when this store's own read finds none: an offered read is someone
      // else's, and a state item missing from it (say, a key left unprocessed) must not make keys.
      if (snap === fed) continue;
      if (!snap.algs.has(alg)) await createFirstKeys(alg);
      // The state names a key this read did not return (an old state item read with a Query,
      // which is not isolated from a transaction in flight; or a lost key item): read again shortly.
      else await new Promise((r) => setTimeout(r, 25 * (attempt + 1)));
    }
    throw serviceUnavailable({ detail: `no current ${alg} signing key` });
  };

  const stateFeed: KeyStateFeed = {
    wanted: (options) => (cache.fresh(options) ? [] : stateItemKeys()),
    rereading: cache.rereading,
    offer(items, readAt) {
      const at = (readAt ?? now()).getTime();
      // A read as new as this one is installed already (the store's own, meanwhile): nothing to do.
      // States a preload read because they were about to expire are installed.
      if ((cache.fresh()?.loadedAt ?? Number.NEGATIVE_INFINITY) >= at) return;
      // The request's own read loaded them: a miss of the key cache, as a refresh would be.
      opts.countLookup?.(false);
      const partition = partitionOfStates(items);
      if (!partition) return;
      const snap = cache.install(partition, at);
      if (snap.loadedAt === at) fed = snap; // not when a newer read had already been installed
    },
  };

  return {
    stateFeed,
    async signJwt(alg, header, payload) {
      // Hot path: a fresh snapshot and an opened key mean no I/O and no await before signing.
      const cur = cache.fresh()?.current.get(alg);
      const key = cur && privateKeys.get(cur.entry.kid);
      if (cur && key) {
        opts.countLookup?.(true);
        return signInput(alg, key, encoder.signingInput(alg, cur.entry.kid, header, payload));
      }
      const k = await currentKey(alg);
      const priv = await unwrap(k.record);
      return signInput(alg, priv, encoder.signingInput(alg, k.entry.kid, header, payload));
    },
    publishedKeys: cache.publishedKeys,
    publicKey: cache.publicKey,
    lastKnownPublicKey: cache.lastKnownPublicKey,
  };
}

async function openPrivateKey(source: KeyPairSource, record: SigningKeyRecord): Promise<KeyObject> {
  if (record.wrappedBy !== source.kind || !record.wrappedPrivateKey) {
    throw internalError({
      detail: `signing key ${record.kid} is held by ${record.wrappedBy}, this stage uses ${source.kind} (KEY_MODE changed?)`,
    });
  }
  const key = await source.unwrapPrivateKey(record.wrappedPrivateKey, record.alg);
  // A wrapped key swapped between items would sign tokens nobody can verify: refuse it.
  if (!samePublicKey(jwkOfKey(key), record.jwk)) throw internalError({ detail: `signing key ${record.kid} does not match its public key` });
  return key;
}
