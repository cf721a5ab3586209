import { type AppError, conflict } from '../../errors.ts';
import { and, type Condition, equals, exists } from './expression.ts';
import { isRetryable, withRetries } from './retry.ts';
import { type Key, type Path, updateItem, type Write } from './writes.ts';

/**
 * The write of a version-conditioned update (docs/design.md §3.7: no lost update): sets `fields`, sets
 * `version` to expected + 1, and requires `version = expected`. A failed condition is a
 * `RetryableConflict` that `updateWithRetry` turns into a re-read and a re-applied merge.
 */
export function versionedUpdate(
  key: Key,
  fields: Record<string, unknown>,
  expectedVersion: number,
  extra: { remove?: readonly Path[]; condition?: Condition } = {},
): Write {
  const set: [Path, unknown][] = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, v]);
  const unset = Object.entries(fields)
    .filter(([, v]) => v === undefined)
    .map(([k]) => k);
  set.push(['version', expectedVersion + 1]);
  const remove = [...unset, ...(extra.remove ?? [])];
  const condition = extra.condition
    ? and(exists, equals('version', expectedVersion), extra.condition)
    : and(exists, equals('version', expectedVersion));
  return updateItem(key, { set, ...(remove.length ? { remove } : {}), condition });
}

export interface UpdateWithRetry<R extends { version: number }> {
  /** Consistent read of the current record. */
  load: () => Promise<R | undefined>;
  /** Merges the change into `current` and writes it conditioned on `current.version`. */
  write: (current: R) => Promise<R>;
  notFound: () => AppError;
  /**
   * If-Match: the caller's version. Given, a mismatch is an immediate 409 (the caller's view is
   * stale); absent, a lost race re-reads and re-applies the merge (what PATCH users expect).
   */
  expectedVersion?: number;
}

/** Enough for a dozen concurrent PATCHes of one record to all land (each round one of them wins). */
const UPDATE_ATTEMPTS = 12;

export function updateWithRetry<R extends { version: number }>(u: UpdateWithRetry<R>): Promise<R> {
  return withRetries(
    async () => {
      const current = await u.load();
      if (!current) throw u.notFound();
      if (u.expectedVersion !== undefined && current.version !== u.expectedVersion) {
        throw conflict(`The record is at version ${current.version}, not ${u.expectedVersion}.`);
      }
      try {
        return await u.write(current);
      } catch (err) {
        if (u.expectedVersion !== undefined && isRetryable(err)) throw conflict('The record was changed concurrently.', { cause: err });
        throw err;
      }
    },
    { attempts: UPDATE_ATTEMPTS },
  );
}
