import type { AppError } from '../../errors.ts';
import { entity } from './entity.ts';
import { type Condition, equals } from './expression.ts';
import { deleteItem, type Key, putItem, type Write } from './writes.ts';

/**
 * Uniqueness markers (docs/design.md §3.7): an item whose key IS the unique value, put with
 * `attribute_not_exists` in the same transaction as the record it guards and deleted (or moved)
 * in the same transaction as the record. `target_id` names the owner, so a marker is also a
 * strongly consistent lookup. A marker may carry a `ttl` (e.g. a device user_code): once past
 * it, the marker is free again, even before DynamoDB's TTL sweep deletes it.
 */
export interface MarkerOptions {
  /** Epoch seconds after which the marker no longer holds the value. */
  ttl?: number;
  /** Epoch seconds now, to reclaim an expired marker. */
  nowSeconds?: number;
  /** Data the marker carries besides its owner (e.g. a resource's token view). */
  attributes?: Record<string, unknown>;
  onTaken: () => AppError;
}

export function putMarker(key: Key, targetId: string, options: MarkerOptions): Write {
  const free: Condition =
    options.nowSeconds === undefined
      ? (x) => `attribute_not_exists(${x.name('PK')})`
      : (x) =>
          `attribute_not_exists(${x.name('PK')}) OR (attribute_exists(${x.name('ttl')}) AND ${x.name('ttl')} <= ${x.value(options.nowSeconds)})`;
  return putItem(
    {
      ...options.attributes,
      ...key,
      ...entity('UniqueMarker'),
      target_id: targetId,
      ...(options.ttl !== undefined ? { ttl: options.ttl } : {}),
    },
    { condition: free, onFail: options.onTaken },
  );
}

/** Deletes a marker only if it still names `targetId` (never someone else's value). */
export function deleteMarker(key: Key, targetId: string): Write {
  return deleteItem(key, { condition: equals('target_id', targetId) });
}
