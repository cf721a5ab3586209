/**
 * Where streamed events go (docs/events.md "Streaming: the EventBridge bus"): the stage's
 * EventBridge bus in AWS (`eventBridgePublisher`), a JSON-lines file locally (`jsonLinesPublisher`).
 */

/** One event as a bus entry: EventBridge's `Source`, `DetailType` and `Detail` (a JSON object). */
export interface EventEntry {
  readonly source: string;
  readonly detailType: string;
  readonly detail: string;
}

/** The outcome of one entry of a `publish` call: delivered, or the publisher's error code. */
export type EntryOutcome = { readonly ok: true } | { readonly ok: false; readonly errorCode: string };

export interface EventPublisher {
  /**
   * Publishes at most `MAX_ENTRIES_PER_CALL` entries, together at most `MAX_BYTES_PER_CALL`; the
   * outcomes are in the entries' order. A call that fails as a whole throws.
   */
  publish(entries: readonly EventEntry[]): Promise<readonly EntryOutcome[]>;
}

/** PutEvents takes at most 10 entries per call (EventBridge quotas). */
export const MAX_ENTRIES_PER_CALL = 10;

/** PutEvents takes at most 256 KB per call, all entries together (EventBridge quotas). */
export const MAX_BYTES_PER_CALL = 256 * 1024;

/**
 * An entry's size as EventBridge counts it ("Calculating PutEvents event entry size"): 14 bytes
 * for the time, then the UTF-8 bytes of the source, the detail-type and the detail.
 */
export function entrySize(entry: EventEntry): number {
  return 14 + Buffer.byteLength(entry.source) + Buffer.byteLength(entry.detailType) + Buffer.byteLength(entry.detail);
}
