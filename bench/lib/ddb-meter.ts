import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** What one or more DynamoDB calls cost, as DynamoDB itself reports it (ReturnConsumedCapacity). */
export interface DdbUsage {
  calls: number;
  /** Calls by command name (`QueryCommand`, `TransactWriteItemsCommand`, ...). */
  byCommand: Record<string, number>;
  /** Read calls (Get/BatchGet/Query/Scan/TransactGet) and write calls. */
  reads: number;
  writes: number;
  /** Capacity units reported by DynamoDB (read + write; on-demand billing bills these as RRU / WRU). */
  rcu: number;
  wcu: number;
}

const READS = new Set([
  'GetItemCommand',
  'BatchGetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'TransactGetItemsCommand',
  'GetCommand',
  'BatchGetCommand',
  'TransactGetCommand',
]);
const CAPACITY_COMMANDS = new Set([
  'GetItemCommand',
  'BatchGetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'TransactGetItemsCommand',
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);

export const emptyUsage = (): DdbUsage => ({ calls: 0, byCommand: {}, reads: 0, writes: 0, rcu: 0, wcu: 0 });

export interface DdbMeter {
  /** A copy of the totals so far. */
  snapshot(): DdbUsage;
  /** `later - earlier`. */
  since(earlier: DdbUsage): DdbUsage;
}

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/**
 * Counts every DynamoDB call of `client` with an SDK middleware (docs/design.md: measured, not
 * estimated). The middleware runs on the low-level client's stack, which the document client
 * shares, after marshalling: it asks DynamoDB for `ReturnConsumedCapacity: TOTAL` on every call that
 * supports it and adds up what DynamoDB answers. DynamoDB Local computes consumed capacity with the
 * same rules as the service (4 KB read units, eventually consistent = half, 1 KB write units,
 * transactions double). The low-level command name is what is counted, so `GetCommand` of the
 * document client appears as `GetItemCommand`.
 */
export function attachDdbMeter(client: DynamoDBDocumentClient | DynamoDBClient): DdbMeter {
  const total = emptyUsage();
  const stack = client.middlewareStack as unknown as {
    add(mw: unknown, opts: { step: string; name: string; priority?: string; override?: boolean }): void;
  };
  stack.add(
    (next: (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>, context: { commandName?: string }) =>
      async (args: { input: Record<string, unknown> }) => {
        const name = context.commandName ?? 'unknown';
        if (CAPACITY_COMMANDS.has(name) && args.input.ReturnConsumedCapacity === undefined) {
          args.input.ReturnConsumedCapacity = 'TOTAL';
        }
        total.calls += 1;
        total.byCommand[name] = (total.byCommand[name] ?? 0) + 1;
        if (READS.has(name)) total.reads += 1;
        else total.writes += 1;
        const out = await next(args);
        const cc = out.output.ConsumedCapacity as Capacity | Capacity[] | undefined;
        for (const c of Array.isArray(cc) ? cc : cc ? [cc] : []) {
          const r = c.ReadCapacityUnits;
          const w = c.WriteCapacityUnits;
          if (r !== undefined || w !== undefined) {
            total.rcu += r ?? 0;
            total.wcu += w ?? 0;
          } else if (READS.has(name)) total.rcu += c.CapacityUnits ?? 0;
          else total.wcu += c.CapacityUnits ?? 0;
        }
        return out;
      },
    { step: 'initialize', name: 'benchDdbMeter', priority: 'low', override: true },
  );
  const copy = (u: DdbUsage): DdbUsage => ({ ...u, byCommand: { ...u.byCommand } });
  return {
    snapshot: () => copy(total),
    since(earlier) {
      const byCommand: Record<string, number> = {};
      for (const [k, v] of Object.entries(total.byCommand)) {
        const d = v - (earlier.byCommand[k] ?? 0);
        if (d) byCommand[k] = d;
      }
      return {
        calls: total.calls - earlier.calls,
        byCommand,
        reads: total.reads - earlier.reads,
        writes: total.writes - earlier.writes,
        rcu: total.rcu - earlier.rcu,
        wcu: total.wcu - earlier.wcu,
      };
    },
  };
}
