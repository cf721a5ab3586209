import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AppError } from '../../errors.ts';
import { type Condition, Expr } from './expression.ts';
import { type Key, keyString, type Path, type Write, writeKey } from './writes.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** All writes of one chunk that name one item, folded into one transaction action. */
export interface MergedWrite {
  key: Key;
  kind: 'put' | 'delete' | 'check' | 'update';
  item?: Record<string, unknown>;
  set: Map<string, readonly [Path, unknown]>;
  add: Map<string, readonly [Path, number]>;
  remove: Map<string, Path>;
  conditions: Condition[];
  onFail?: () => AppError;
}

const pathKey = (p: Path) => (typeof p === 'string' ? p : p.join('\u0000'));

/** Folds writes by item; a put mixed with an update or delete of the same item is a bug. */
export function mergeWrites(writes: readonly Write[]): MergedWrite[] {
  const byKey = new Map<string, MergedWrite>();
  for (const w of writes) {
    const k = keyString(writeKey(w));
    let m = byKey.get(k);
    if (!m) {
      m = { key: writeKey(w), kind: 'check', set: new Map(), add: new Map(), remove: new Map(), conditions: [] };
      byKey.set(k, m);
    }
    if (w.condition) m.conditions.push(w.condition);
    if (w.onFail && !m.onFail) m.onFail = w.onFail;
    if (w.kind === 'put') {
      if (m.kind !== 'check') throw new Error(`Plan bug: put and ${m.kind} of one item ${k}`);
      m.kind = 'put';
      m.item = w.item;
    } else if (w.kind === 'delete') {
      if (m.kind === 'put') throw new Error(`Plan bug: put and delete of one item ${k}`);
      m.kind = 'delete';
    } else if (w.kind === 'update') {
      if (m.kind === 'put') throw new Error(`Plan bug: put and update of one item ${k}`);
      if (m.kind !== 'delete') m.kind = 'update';
      for (const [p, v] of w.set ?? []) m.set.set(pathKey(p), [p, v]);
      for (const [p, d] of w.add ?? []) {
        const prev = m.add.get(pathKey(p));
        m.add.set(pathKey(p), [p, (prev?.[1] ?? 0) + d]);
      }
      for (const p of w.remove ?? []) m.remove.set(pathKey(p), p);
    }
  }
  for (const m of byKey.values()) {
    // A removed map entry makes any change of that entry or of anything inside it moot (and
    // DynamoDB rejects overlapping paths): e.g. deleting a scope removes `scope_holders.{id}` that a
    // holder's revoke in the same transaction decrements, and removing a client's link removes
    // `token_grants.{resource}` whose scope entries the same unlink removes one by one.
    for (const k of m.remove.keys()) {
      const inside = (other: string) => other === k || other.startsWith(`${k}\u0000`);
      for (const map of [m.set, m.add]) for (const other of [...map.keys()]) if (inside(other)) map.delete(other);
      for (const other of [...m.remove.keys()]) if (other !== k && inside(other)) m.remove.delete(other);
    }
  }
  return [...byKey.values()];
}

/** The lib-dynamodb transaction action of a merged write. */
export function toTransactItem(m: MergedWrite, tableName: string): TransactItem {
  const x = new Expr();
  // Merged writes often repeat a condition (every grant of one resource requires its map): once is enough.
  const cond = m.conditions.length ? { ConditionExpression: [...new Set(m.conditions.map((c) => `(${c(x)})`))].join(' AND ') } : {};
  switch (m.kind) {
    case 'put':
      return { Put: { TableName: tableName, Item: m.item!, ...cond, ...x.attributes() } };
    case 'delete':
      return { Delete: { TableName: tableName, Key: m.key, ...cond, ...x.attributes() } };
    case 'check':
      return {
        ConditionCheck: {
          TableName: tableName,
          Key: m.key,
          ConditionExpression: cond.ConditionExpression ?? 'attribute_exists(PK)',
          ...x.attributes(),
        },
      };
    case 'update':
      return { Update: { TableName: tableName, Key: m.key, UpdateExpression: updateExpression(m, x), ...cond, ...x.attributes() } };
  }
}

function updateExpression(m: MergedWrite, x: Expr): string {
  const sets = [...m.set.values()].map(([p, v]) => `${x.name(p)} = ${x.value(v)}`);
  for (const [p, d] of m.add.values()) {
    const n = x.name(p);
    sets.push(`${n} = if_not_exists(${n}, ${x.value(0)}) + ${x.value(d)}`);
  }
  const removes = [...m.remove.values()].map((p) => x.name(p));
  return [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean).join(' ');
}
