import { type CollectionSpec, isFieldName } from './collection-spec.ts';
import type { RecordParams } from './list-params.ts';

/**
 * Applies `expand` then `fields` to one record (list item or single record): children are
 * dropped unless `expand=all`, then only the named attributes are kept. Returns a new object;
 * attributes the record lacks stay absent rather than appearing as null. Attributes the spec
 * does not declare are never returned: the spec is the public shape, so a stored-only field
 * (`secret_hash`, `secret_sealed`, `version`, `links_version`) cannot leak through a list even
 * when a handler forgets to map records to their view (fail closed).
 */
export function shapeItem(spec: CollectionSpec, item: Readonly<Record<string, unknown>>, params: RecordParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const keep = params.fields ? new Set(params.fields) : undefined;
  for (const [k, v] of Object.entries(item)) {
    if (!isFieldName(spec, k)) continue;
    if (!params.expand && spec.children.has(k)) continue;
    if (keep && !keep.has(k)) continue;
    out[k] = v;
  }
  return out;
}

/** Whether children need loading at all: `expand=all` and not projected away by `fields`. */
export function wantsChildren(spec: CollectionSpec, params: RecordParams): boolean {
  if (!params.expand || spec.children.size === 0) return false;
  return !params.fields || params.fields.some((f) => spec.children.has(f));
}
