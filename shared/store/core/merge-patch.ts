/** A PATCH body: any field may be left out, nested objects too. Arrays are replaced whole. */
export type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/**
 * docs/contract.md §6: "Modify is PATCH and merges: a field left out keeps its value". Objects merge
 * recursively (a PATCH of `client_metadata.grant_types` keeps `client_metadata.urls`), arrays and
 * scalars replace, `undefined` means "left out". Unlike RFC 7396, `null` is a value, not a delete:
 * `client_secret_expires_at: null` means "never expires".
 *
 * Bounded without a check of its own (docs/security.md "Exhaustion bounds"): it recurses only where
 * both sides hold an object, so never deeper than `current`, a stored record (DynamoDB holds a
 * document to 32 levels), and visits each member of the patch once, a body already held to 64
 * levels and 10,000 members before it was parsed (shared/http/json-bounds.ts).
 */
export function mergePatch<T>(current: T, patch: DeepPartial<T> | undefined): T {
  if (patch === undefined) return current;
  if (!isPlainObject(current) || !isPlainObject(patch)) return patch as T;
  const out: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? mergePatch(out[k], v) : v;
  }
  return out as T;
}

/** Top-level fields of `next` that differ from `current` (structural comparison). */
export function changedFields<T extends object>(current: T, next: T, fields: readonly (keyof T)[]): Partial<T> {
  const out: Partial<T> = {};
  for (const f of fields) {
    if (JSON.stringify(current[f]) !== JSON.stringify(next[f])) out[f] = next[f];
  }
  return out;
}
