import type { SigningKeysRepository } from './signing-keys-repository.ts';

/** Rounds of re-read and retry when another writer changes a state meanwhile. */
const ATTEMPTS = 3;

/**
 * Upgrade of state items written before they embedded their keys (docs/keys.md, "One read"): each
 * such `ALG#{alg}` item is rewritten, unchanged but for the copy of the keys it names, with a
 * write conditioned on its `version` (bumped). Until then readers fall back to the partition
 * Query, so this is about cost, not correctness. Idempotent; returns how many items it rewrote. A
 * lost race (a rotation or another upgrade wrote the state meanwhile) re-reads: a state the winner
 * already embedded needs nothing; one still without keys (written by an older deployment) is
 * tried again, a few times, then left for the next run.
 */
export async function embedKeysInStates(repo: SigningKeysRepository, now: () => Date): Promise<number> {
  let upgraded = 0;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // The Query: only the key items can supply the records an old state does not carry.
    const partition = await repo.loadPartition();
    let lost = false;
    for (const alg of partition.legacyStates) {
      const state = partition.states.get(alg);
      if (!state) continue;
      const written = await repo.write({
        alg,
        expectedVersion: state.version,
        state: { currentKid: state.currentKid, nextKid: state.nextKid, previous: state.previous },
        put: [],
        update: [],
        delete: [],
        at: now().toISOString(),
        records: partition.keys,
      });
      if (written) upgraded++;
      else lost = true;
    }
    if (!lost) break;
  }
  return upgraded;
}
