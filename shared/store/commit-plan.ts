import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { internalError, serviceUnavailable, type AppError } from '../errors.ts';
import { equals } from './expression.ts';
import { mergeWrites, toTransactItem, type MergedWrite } from './merge-writes.ts';
import { RetryableConflict } from './retry.ts';
import { translateError } from './translate-error.ts';
import { keyString, writeKey, type Key, type Write } from './writes.ts';

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
export async function commitPlan(db: DynamoDBDocumentClient, tableName: string, units: readonly (readonly Write[])[], options: PlanOptions = {}): Promise<PlanResult> {
  const guards = new Map((options.guards ?? []).map((g) => [keyString(g.key), { ...g }]));
  const chunks = pack(units);
  let result: PlanResult = {};
  for (const chunk of chunks) {
    const merged = mergeWrites(chunk.flatMap((i) => units[i]!));
    const bumps = applyGuards(merged, guards);
    result = await send(db, tableName, merged);
    for (const [k, d] of bumps) guards.get(k)!.expected += d;
    options.onCommitted?.(chunk);
  }
  return chunks.length === 1 ? result : {};
}

function pack(units: readonly (readonly Write[])[]): number[][] {
  const chunks: number[][] = [];
  let current: number[] = [];
  let keys = new Set<string>();
  units.forEach((unit, i) => {
    const unitKeys = new Set(unit.map((w) => keyString(writeKey(w))));
    if (unitKeys.size > MAX_TRANSACTION_ITEMS) throw new Error(`Plan bug: one unit touches ${unitKeys.size} items`);
    const union = new Set([...keys, ...unitKeys]);
    if (union.size > MAX_TRANSACTION_ITEMS) {
      chunks.push(current);
      current = [];
      keys = unitKeys;
    } else keys = union;
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
