import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, conflict } from '../../errors.ts';

/**
 * A condition of a write failed because something changed between our consistent read and our
 * write (optimistic concurrency), or another transaction held one of the items. The operation is
 * safe to re-run from a fresh read; `withRetries` does so. Rendered as 409 if it escapes.
 */
export class RetryableConflict extends AppError {
  constructor(message = 'The record was changed concurrently; retry.', cause?: unknown) {
    super(409, 'conflict', message, cause === undefined ? {} : { cause });
    this.name = 'RetryableConflict';
  }
}

export const isRetryable = (e: unknown): e is RetryableConflict => e instanceof RetryableConflict;

export interface RetryOptions {
  /**
   * Attempts in all (default 8). Each round of a race has at least one winner, so n writers on one
   * item need up to n attempts in the worst case; with full jitter 8 covers the 10-way races the
   * tests run even on a loaded machine (5 did not), and the sleeps add up to at most about 1.8 s,
   * well inside a management function's timeout.
   */
  attempts?: number;
}

/**
 * Runs `attempt` (read, decide, conditional write) until it does not lose a race, with jittered
 * backoff. After the last attempt the conflict is a plain 409 (docs/contract.md §2: concurrent modification).
 */
export async function withRetries<T>(attempt: (n: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 8;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (!isRetryable(err)) throw err;
      if (n >= attempts) throw conflict('The record is being changed concurrently; retry.', { cause: err });
      // Full jitter, capped (AWS Architecture Blog, "Exponential Backoff and Jitter").
      await sleep(Math.random() * Math.min(400, 20 * 2 ** n));
    }
  }
}
