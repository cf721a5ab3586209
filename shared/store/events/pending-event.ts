import { AsyncLocalStorage } from 'node:async_hooks';
import type { FoldedEvent } from '../../ports/event-log.ts';
import type { NewEvent } from '../../records/event-record.ts';

/**
 * The event of a management write (docs/events.md "Management writes"), waiting for the write.
 * The management pipeline opens it around the use case; the first transaction the request commits
 * (commitPlan, sendWithEvents) carries it, so the write and its event land together or not at all,
 * and no repository method needs a parameter for it. A create's target id is not known when the
 * request starts: it is the `id` of the first item the committing transaction puts.
 */
interface Pending {
  event: NewEvent;
  fold: (event: NewEvent) => FoldedEvent;
  /** Set once a transaction carrying the event has committed. */
  recorded: boolean;
}

const scope = new AsyncLocalStorage<Pending>();

/** Runs `fn` with `event` pending; returns what it returns and whether the event was recorded. */
export async function withPendingEvent<T>(
  event: NewEvent,
  fold: (event: NewEvent) => FoldedEvent,
  fn: () => Promise<T>,
): Promise<{ result: T; recorded: boolean }> {
  const pending: Pending = { event, fold, recorded: false };
  const result = await scope.run(pending, fn);
  return { result, recorded: pending.recorded };
}

/**
 * The pending event as a Put for a transaction about to be sent, or undefined (none pending, or
 * already recorded). `puts` are the items the transaction puts, in order (a create's target id).
 * Call `committed()` on the returned handle once the transaction has succeeded.
 */
export function takePendingEvent(puts: readonly Record<string, unknown>[]): { event: FoldedEvent; committed: () => void } | undefined {
  const pending = scope.getStore();
  if (!pending || pending.recorded) return undefined;
  let event = pending.event;
  if (event.target && !event.target.id) {
    const created = puts.find((p) => typeof p.id === 'string');
    if (created) event = { ...event, target: { ...event.target, id: created.id as string } };
  }
  return {
    event: pending.fold(event),
    committed: () => {
      pending.recorded = true;
    },
  };
}
