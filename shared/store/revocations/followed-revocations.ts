import { type RevocationRef, refString } from '../../records/revocation-ref.ts';
import { readAheadMs } from '../../ttl-cache.ts';
import type { LoggedRevocation, RevocationLog, RevocationsRepository } from './revocations-repository.ts';

export interface FollowOptions {
  /** How often the log is read again: a revocation made in another container is seen within this. */
  refreshMs: number;
  /**
   * How far before the previous read's start each read begins: the longest a revocation's write
   * can take from its timestamp to being stored, plus clock skew between containers.
   */
  overlapMs: number;
  /** How far back the first read goes: the longest lifetime of a token (an older revocation names an expired token). */
  horizonMs: number;
  clock?: () => number;
}

const PRUNE_EVERY_MS = 60_000;

/**
 * The revocation list as one container follows it (docs/tokens.md "Revocation checks and their
 * cost"): the first check reads every live revocation from the log (one consistent Query of the
 * last `horizonMs`), and from then on a check finding the last read older than `refreshMs`
 * reads what was logged since it (one Query, from `overlapMs` before the previous read began).
 * A token's check is then a lookup in memory, whatever the number of distinct tokens: the cost
 * does not grow with the tokens a container has not seen lately.
 *
 * - Bound as stored (docs/contract.md §8): an entry revokes the token of its own jti, verifier and client;
 *   an entry of the unbound format (verifier undefined) the token of its jti and client.
 * - A revocation made in this container is seen by it at once; made elsewhere, within
 *   `refreshMs` of being stored.
 * - Until bootstrap has copied the revocations made before the log existed into it (the log says
 *   whether it is complete), every check goes to `fallback`, the per-token reads.
 * - A failed read of the log fails the check (a 503, never "not revoked") and is tried again by
 *   the next check.
 */
export function followedRevocations(
  table: RevocationsRepository & { readonly log: RevocationLog },
  fallback: RevocationsRepository,
  o: FollowOptions,
): RevocationsRepository {
  const clock = o.clock ?? Date.now;
  /** Binding (`refString`, with verifier `*` for unbound entries) → when it stops mattering (epoch ms). */
  const revoked = new Map<string, number>();
  let complete = false;
  let readThrough: number | undefined; // the start of the last read that covered everything before it
  let lastRead = Number.NEGATIVE_INFINITY;
  let lastPrune = clock();
  let reading: Promise<void> | undefined;

  const remember = (binding: string, untilMs: number) => revoked.set(binding, Math.max(untilMs, revoked.get(binding) ?? 0));
  const bindingOf = (e: LoggedRevocation) => refString({ jti: e.jti, clientId: e.clientId, verifier: e.verifier ?? '*' });
  const live = (binding: string) => (revoked.get(binding) ?? 0) > clock();
  const inMemory = (ref: RevocationRef) => live(refString(ref)) || live(refString({ ...ref, verifier: '*' }));

  async function catchUp() {
    const started = clock();
    if (!complete) complete = await table.log.complete();
    if (complete) {
      const from = readThrough === undefined ? started - o.horizonMs : readThrough - o.overlapMs;
      for (const e of await table.log.read(new Date(from).toISOString())) remember(bindingOf(e), e.expiresAtMs);
      readThrough = started;
    }
    lastRead = started;
    if (started - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = started;
      for (const [binding, until] of revoked) if (until <= started) revoked.delete(binding);
    }
  }
  // Read ahead, once: the first check within `aheadMs` of the deadline reads the log and waits
  // for it; the checks beside it answer from memory, still within `refreshMs` of the last read,
  // instead of all waiting for that read (ttl-cache.ts `Lookahead`). Past the deadline every check waits.
  const aheadMs = readAheadMs(o.refreshMs);
  const fresh = async () => {
    const age = clock() - lastRead;
    if (age < o.refreshMs - aheadMs || (reading && age < o.refreshMs)) return;
    reading ??= catchUp().finally(() => {
      reading = undefined;
    });
    await reading;
  };

  return {
    log: table.log,
    // Folded into a cold introspection's one BatchGetItem: whether the log is complete (then
    // nothing else: the log answers for every token), and until then the token's own entries.
    feed: fallback.feed && {
      wanted: (ref) => (complete ? [] : [table.log.completeMarker, ...fallback.feed!.wanted(ref)]),
      offer(ref, found) {
        if (found(table.log.completeMarker)) complete = true;
        fallback.feed!.offer(ref, found);
      },
    },
    async revoke(ref, expiresAt) {
      const outcome = await fallback.revoke(ref, expiresAt);
      if (outcome === 'revoked') remember(refString(ref), expiresAt.getTime());
      return outcome;
    },
    async isRevoked(ref) {
      if (inMemory(ref)) return true;
      await fresh();
      return complete ? inMemory(ref) : fallback.isRevoked(ref);
    },
  };
}
