import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { EventPublisher } from './event-publisher.ts';

/**
 * Locally, the bus is a file (docs/events.md "Locally: events.jsonl"): one line per event, its
 * record (the detail an EventBridge rule would see; the detail-type is its `type`), appended in
 * one write per call so that lines never interleave.
 */
export function jsonLinesPublisher(file: string): EventPublisher {
  let ready: Promise<unknown> | undefined;
  return {
    async publish(entries) {
      ready ??= mkdir(dirname(file), { recursive: true });
      await ready;
      await appendFile(file, entries.map((e) => `${e.detail}\n`).join(''));
      return entries.map(() => ({ ok: true }));
    },
  };
}
