import type { NewEvent } from '../records/event-record.ts';

/**
 * An event made ready to ride on a flow's own write (docs/events.md "Recording"): the item, with
 * its id, keys and expiry. A repository that takes `events` adds one Put per event to the
 * transaction it already sends, so the event lands if and only if the flow's write does.
 */
export interface FoldedEvent {
  readonly item: Readonly<Record<string, unknown>>;
}

/** How a use case records an event (built in shared/wiring/ from the store). */
export interface EventLog {
  /** The event as an item to fold into the flow's own write: no I/O. */
  fold(event: NewEvent): FoldedEvent;
  /**
   * One separate write, for a flow that makes none the event could ride on. Retried; a failure is
   * logged (ids only) and counted in `EventsNotRecorded`, never thrown: recording an event is not
   * a reason to fail a sign-in.
   */
  record(event: NewEvent): Promise<void>;
}
