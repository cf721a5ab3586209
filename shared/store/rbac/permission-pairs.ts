import type { PermissionRequest } from '../../records/client-link-records.ts';

/** One (resource, scope) of a permission body. */
export type Pair = { resourceId: string; scopeId: string };

/** The distinct (resource, scope) pairs of a permission body (`[{resource_id, scopes}]`), in body order. */
export function pairsOf(requests: readonly PermissionRequest[]): Pair[] {
  const seen = new Map<string, Pair>();
  for (const r of requests) for (const s of r.scopes) seen.set(`${r.resource_id}#${s}`, { resourceId: r.resource_id, scopeId: s });
  return [...seen.values()];
}
