import type { CollectionSpec, SortDirection, SortKey } from './collection-spec.ts';
import { ParamSyntaxError } from './list-params.ts';

/**
 * `sort=attr[:asc|:desc],...` (spec §4.1). The spec's text says colon but its example uses a
 * space, so the separator may be `:`, spaces, or `+` (API Gateway leaves `+` undecoded in
 * query strings). Direction is case-insensitive; an attribute may appear once. Empty: `undefined`
 * (the collection's default order).
 */
export function parseSort(spec: CollectionSpec, raw: string): SortKey[] | undefined {
  if (raw.trim() === '') return undefined;
  const keys: SortKey[] = [];
  for (const [i, part] of raw.split(',').entries()) {
    // docs/contract.md §8: a message names the key by its place (1-based), never quotes what was sent.
    const key = `sort key ${i + 1}`;
    const m = /^[\s+]*([A-Za-z_][A-Za-z0-9_]*)(?:(?:\s*:\s*|[\s+]+)([A-Za-z]+))?[\s+]*$/.exec(part);
    if (!m) throw new ParamSyntaxError(part.trim() === '' ? `${key} is empty` : `${key} is not attr[:asc|:desc]`);
    const attribute = m[1] as string;
    const def = spec.attributes.get(attribute);
    if (!def) throw new ParamSyntaxError(`${key} names an unknown attribute`);
    if (!def.sortable) throw new ParamSyntaxError(`${key} names an attribute that cannot be sorted by`);
    const direction = (m[2] ?? 'asc').toLowerCase();
    if (direction !== 'asc' && direction !== 'desc') throw new ParamSyntaxError(`${key}: the direction must be asc or desc`);
    if (keys.some((k) => k.attribute === attribute)) throw new ParamSyntaxError(`${key} repeats the attribute of an earlier key`);
    keys.push({ attribute, direction: direction as SortDirection });
  }
  return keys;
}
