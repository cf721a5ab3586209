import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import { type ForwardDeps, forwardEvents } from '#shared/events/forward-events.ts';

/** How often the local stream is read: an event shows up in the file within about this long. */
export const LOCAL_STREAM_POLL_MS = 250;

/** New shards (DynamoDB rolls them over every few hours) are looked for every this many polls. */
const SHARD_SCAN_EVERY = 20;

export interface LocalEventStream {
  /** Reads what the stream still holds, forwards it, and stops. */
  stop(): Promise<void>;
}

export interface LocalEventStreamOptions {
  endpoint: string;
  region: string;
  tableName: string;
  /** The forwarder's dependencies with the local publisher (shared/wiring/event-stream.ts `forwarderDepsWith`). */
  deps: ForwardDeps;
  /** A read or a write that failed; the stream is read again at the next poll. */
  onError(err: unknown): void;
  pollMs?: number;
}

/**
 * Locally, Lambda's event source mapping is this loop (docs/events.md "Locally: events.jsonl"): it
 * reads DynamoDB Local's stream of the table every LOCAL_STREAM_POLL_MS and hands the records to the
 * same `forwardEvents` the forwarder function runs. It starts at the stream's end (LATEST): what an
 * earlier run wrote was that run's to forward; a shard that appears later is read from its start.
 * Records the publisher could not take are read again from the first of them at the next poll, as
 * Lambda retries a batch item failure.
 */
export async function startLocalEventStream(o: LocalEventStreamOptions): Promise<LocalEventStream> {
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const db = new DynamoDBClient({ endpoint: o.endpoint, region: o.region, credentials });
  const streams = new DynamoDBStreamsClient({ endpoint: o.endpoint, region: o.region, credentials });
  let streamArn: string | undefined;
  try {
    streamArn = (await db.send(new DescribeTableCommand({ TableName: o.tableName }))).Table?.LatestStreamArn;
  } finally {
    db.destroy();
  }
  if (!streamArn) throw new Error(`Table ${o.tableName} has no stream: the local event forwarder reads it.`);
  const arn = streamArn;

  /** Open shards by id, each with where to read next. */
  const iterators = new Map<string, string>();
  /** Every shard ever seen, so that a finished one is not read again. */
  const seen = new Set<string>();

  const iteratorOf = async (shardId: string, type: ShardIteratorType, sequenceNumber?: string) =>
    (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: arn,
          ShardId: shardId,
          ShardIteratorType: type,
          ...(sequenceNumber ? { SequenceNumber: sequenceNumber } : {}),
        }),
      )
    ).ShardIterator;

  const scanShards = async (first: boolean) => {
    const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription?.Shards ?? [];
    for (const shard of shards) {
      const id = shard.ShardId;
      if (!id || seen.has(id)) continue;
      seen.add(id);
      // At start, closed shards are history and open ones are read from now on; later, a new shard from its start.
      if (first && shard.SequenceNumberRange?.EndingSequenceNumber) continue;
      const iterator = await iteratorOf(id, first ? 'LATEST' : 'TRIM_HORIZON');
      if (iterator) iterators.set(id, iterator);
    }
  };

  const readShard = async (shardId: string, iterator: string) => {
    const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    const records = out.Records ?? [];
    const { batchItemFailures } = await forwardEvents(records, o.deps);
    const retryFrom = batchItemFailures[0]?.itemIdentifier;
    if (retryFrom) {
      const again = await iteratorOf(shardId, 'AT_SEQUENCE_NUMBER', retryFrom);
      if (again) iterators.set(shardId, again);
    } else if (out.NextShardIterator) iterators.set(shardId, out.NextShardIterator);
    else iterators.delete(shardId); // the shard is closed and read to its end
  };

  let polls = 0;
  const poll = async () => {
    if (polls++ % SHARD_SCAN_EVERY === 0 && polls > 1) await scanShards(false);
    for (const [shardId, iterator] of [...iterators]) await readShard(shardId, iterator);
  };

  await scanShards(true);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    timer = setTimeout(() => {
      running = poll()
        .catch((err) => o.onError(err))
        .finally(() => {
          if (!stopped) schedule();
        });
    }, o.pollMs ?? LOCAL_STREAM_POLL_MS);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      // The last requests' events: one more read before DynamoDB Local goes away.
      await poll().catch((err) => o.onError(err));
      streams.destroy();
    },
  };
}
