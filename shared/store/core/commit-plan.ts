import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type AppError, internalError, serviceUnavailable } from '../../errors.ts';
import type { FoldedEvent } from '../../ports/event-log.ts';
import { takePendingEvent } from '../events/pending-event.ts';
import { equals, notExists } from './expression.ts';
import { type MergedWrite, mergeWrites, toTransactItem } from './merge-writes.ts';
import { RetryableConflict } from './retry.ts';
import { translateError } from './translate-error.ts';
import { type Key, keyString, type Write, writeKey } from './writes.ts';

/** DynamoDB's limit of distinct items per TransactWriteItems. */
export const MAX_TRANSACTION_ITEMS = 100;

/**
 * Optimistic lock on a record's children (docs/data-model.md §1): every chunk that touches `key`
 * requires `links_version = expected` and raises it, so a change derived from a read of the
 * record's links fails (and is retried) if anyone changed them meanwhile.
 */
export interface Guard {
  key: Key;
  expected: number;
}

export interface PlanOptions {
  guards?: readonly Guard[];
  /** Called after each committed chunk with the indexes of the units it held. */
  onCommitted?: (unitIndexes: readonly number[]) => void;
  /** Security events that land with the plan's first unit (docs/events.md "Recording"). */
  events?: readonly FoldedEvent[];
  /**
   * Not the request's change but a write it needs first (an empty map a later path goes into):
   * a management write's pending event waits for the change itself (docs/events.md "Management writes").
   */
  incidental?: boolean;
}

export interface PlanResult {
  /** ALL_NEW attributes when the whole plan was one update of one item (a plain UpdateItem). */
  attributes?: Record<string, unknown>;
}

const LINKS_VERSION = 'links_version';

/**
 * Commits `units` (each a list of writes that must land together) in order. Everything goes in
 * one TransactWriteItems when it fits in 100 items; otherwise units are packed, in order, into as
 * few transactions as needed, each one self-consistent because a unit carries its own counter
 * deltas. A single write is sent as a plain Put/Update/Delete (half the write cost).
 */
export async function commitPlan(
  db: DynamoDBDocumentClient,
  tableName: string,
  units: readonly (readonly Write[])[],
  options: PlanOptions = {},
): Promise<PlanResult> {
  const guards = new Map((options.guards ?? []).map((g) => [keyString(g.key), { ...g }]));
  // Events ride on the first unit: they land if and only if it does (a management write's
  // pending event, shared/store/events/pending-event.ts, and the flow's own).
  const puts = units.flat().flatMap((w) => (w.kind === 'put' ? [w.item] : []));
  const pending = units.length && !options.incidental ? takePendingEvent(puts) : undefined;
  const events = [...(options.events ?? []), ...(pending ? [pending.event] : [])];
  const planned = events.length && units.length ? [[...units[0]!, ...events.map(eventPut)], ...units.slice(1)] : units;
  const chunks = pack(planned);
  let result: PlanResult = {};
  for (const chunk of chunks) {
    const merged = mergeWrites(chunk.flatMap((i) => planned[i]!));
    const bumps = applyGuards(merged, guards);
    result = await send(db, tableName, merged);
    for (const [k, d] of bumps) guards.get(k)!.expected += d;
    if (chunk.includes(0)) pending?.committed();
    options.onCommitted?.(chunk);
  }
  return chunks.length === 1 ? result : {};
}

const eventPut = (e: FoldedEvent): Write => ({ kind: 'put', item: e.item as Key & Record<string, unknown>, condition: notExists });

/**
 * Document paths one item's merged update may name. DynamoDB caps each expression at 4 KB; a
 * counter path costs ~50–60 characters (`#n1.#n234 = if_not_exists(#n1.#n234, :v5) + :v6`), so
 * 60 stay inside. Without this bound, granting ~70 scopes of one resource in one call made its
 * `scope_holders` update too long (a 500). With it, a body at the API's maximum (50 scopes, or 49
 * resources: ≤ 53 paths on the client item) still commits as one transaction.
 */
export const MAX_PATHS_PER_ITEM = 60;

type ItemPaths = Map<string, Set<string>>;

function pathsOf(unit: readonly Write[]): ItemPaths {
  const out: ItemPaths = new Map();
  for (const w of unit) {
    const k = keyString(writeKey(w));
    const set = out.get(k) ?? new Set<string>();
    out.set(k, set);
    if (w.kind !== 'update') continue;
    for (const p of [...(w.set ?? []).map(([p]) => p), ...(w.add ?? []).map(([p]) => p), ...(w.remove ?? [])]) {
      set.add(typeof p === 'string' ? p : p.join('\u0000'));
    }
  }
  return out;
}

/** `a ∪ b` per item, or undefined if that would exceed a transaction's items or an item's paths. */
function union(a: ItemPaths, b: ItemPaths): ItemPaths | undefined {
  const out: ItemPaths = new Map([...a].map(([k, s]) => [k, new Set(s)]));
  for (const [k, s] of b) {
    const merged = out.get(k) ?? new Set<string>();
    for (const p of s) merged.add(p);
    if (merged.size > MAX_PATHS_PER_ITEM) return undefined;
    out.set(k, merged);
  }
  return out.size > MAX_TRANSACTION_ITEMS ? undefined : out;
}

function pack(units: readonly (readonly Write[])[]): number[][] {
  const chunks: number[][] = [];
  let current: number[] = [];
  let paths: ItemPaths = new Map();
  units.forEach((unit, i) => {
    const own = pathsOf(unit);
    if (!union(new Map(), own)) throw new Error(`Plan bug: one unit touches ${own.size} items or too many paths of one item`);
    const both = union(paths, own);
    if (both) paths = both;
    else {
      chunks.push(current);
      current = [];
      paths = own;
    }
    current.push(i);
  });
  if (current.length) chunks.push(current);
  return chunks;
}

/** Adds each guard's condition (and, for updates, its +1) to the merged write of its item. */
function applyGuards(merged: MergedWrite[], guards: Map<string, Guard>): Map<string, number> {
  const bumps = new Map<string, number>();
  for (const m of merged) {
    const k = keyString(m.key);
    const g = guards.get(k);
    if (!g || m.kind === 'put') continue;
    m.conditions.push(equals(LINKS_VERSION, g.expected));
    if (m.kind === 'check') m.kind = 'update';
    if (m.kind === 'update') {
      const d = m.add.get(LINKS_VERSION)?.[1] ?? 1;
      m.add.set(LINKS_VERSION, [LINKS_VERSION, d]);
      bumps.set(k, d);
    }
  }
  return bumps;
}

async function send(db: DynamoDBDocumentClient, tableName: string, merged: MergedWrite[]): Promise<PlanResult> {
  const items = merged.map((m) => toTransactItem(m, tableName));
  try {
    if (items.length === 1 && !items[0]!.ConditionCheck) {
      const it = items[0]!;
      if (it.Put) await db.send(new PutCommand(it.Put));
      else if (it.Delete) await db.send(new DeleteCommand(it.Delete));
      else if (it.Update) {
        const out = await db.send(new UpdateCommand({ ...it.Update, ReturnValues: 'ALL_NEW' }));
        return out.Attributes ? { attributes: out.Attributes } : {};
      }
      return {};
    }
    await db.send(new TransactWriteCommand({ TransactItems: items }));
    return {};
  } catch (err) {
    return failure(err, merged);
  }
}

function failure(err: unknown, merged: MergedWrite[]): never {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name === 'ConditionalCheckFailedException') throw withCause(merged[0]?.onFail?.() ?? new RetryableConflict(undefined, err), err);
  if (e?.name === 'TransactionCanceledException') {
    const reasons = (e.CancellationReasons ?? []).map((r) => r.Code);
    const i = reasons.indexOf('ConditionalCheckFailed');
    if (i >= 0) throw withCause(merged[i]?.onFail?.() ?? new RetryableConflict(undefined, err), err);
    if (reasons.includes('TransactionConflict')) throw new RetryableConflict('A concurrent change was in progress; retry.', err);
    if (reasons.some((r) => r === 'ThrottlingError' || r === 'ProvisionedThroughputExceeded')) throw serviceUnavailable({ cause: err });
    if (reasons.includes('ValidationError')) throw internalError({ cause: err, detail: reasons });
  }
  if (e?.name === 'TransactionConflictException') throw new RetryableConflict('A concurrent change was in progress; retry.', err);
  return translateError(err);
}

function withCause(appError: AppError, cause: unknown): AppError {
  if (appError.cause === undefined) Object.defineProperty(appError, 'cause', { value: cause });
  return appError;
}
