import { TABLE_KEYS } from './table-definition.ts';

/** DynamoDB TTL takes epoch seconds. */
export const ttlOf = (at: Date): number => Math.floor(at.getTime() / 1000);

/**
 * TTL deletion happens up to days after expiry, so every read treats an expired item as absent
 * at once (docs/design.md §3.6).
 */
export function isLive(item: Record<string, unknown>, now: Date): boolean {
  const ttl = item[TABLE_KEYS.ttlAttribute];
  return typeof ttl !== 'number' || ttl * 1000 > now.getTime();
}
