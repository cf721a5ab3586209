import type { AppError } from '../../errors.ts';
import type { Condition } from './expression.ts';

/** The primary key of an item of the single table. */
export interface Key {
  PK: string;
  SK: string;
}

/** An attribute name or a document path into a map (`['scope_names', scopeId]`). */
export type Path = string | readonly string[];

interface Common {
  condition?: Condition;
  /** The error when this write's condition fails; by default a `RetryableConflict` (re-read, retry). */
  onFail?: () => AppError;
}

/**
 * One write of a transaction plan. Several writes may name the same item: the plan merges them
 * into one transaction action (DynamoDB forbids two actions on one item), ANDing conditions,
 * summing counter deltas, and letting a delete absorb updates of the item it removes.
 */
export type Write =
  | (Common & { kind: 'put'; item: Key & Record<string, unknown> })
  | (Common & { kind: 'delete'; key: Key })
  | (Common & { kind: 'check'; key: Key; condition: Condition })
  | (Common & {
      kind: 'update';
      key: Key;
      set?: readonly (readonly [Path, unknown])[];
      /** Counters: `SET p = if_not_exists(p, 0) + d`, commutative, so concurrent ones never lose. */
      add?: readonly (readonly [Path, number])[];
      remove?: readonly Path[];
    });

export type UpdateParts = Omit<Extract<Write, { kind: 'update' }>, 'kind' | 'key'>;

export const putItem = (item: Key & Record<string, unknown>, opts: Common = {}): Write => ({ kind: 'put', item, ...opts });
export const deleteItem = (key: Key, opts: Common = {}): Write => ({ kind: 'delete', key: pick(key), ...opts });
export const checkItem = (key: Key, condition: Condition, onFail?: () => AppError): Write => ({
  kind: 'check',
  key: pick(key),
  condition,
  ...(onFail ? { onFail } : {}),
});
export const updateItem = (key: Key, parts: UpdateParts): Write => ({ kind: 'update', key: pick(key), ...parts });

/** Only PK/SK: a record passed as a key must not drag its attributes into the request. */
const pick = (k: Key): Key => ({ PK: k.PK, SK: k.SK });

export const keyString = (k: Key): string => `${k.PK}\u0000${k.SK}`;

export const writeKey = (w: Write): Key => (w.kind === 'put' ? pick(w.item) : w.key);
