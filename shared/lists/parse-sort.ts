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
  for (const part of raw.split(',')) {
    const m = /^[\s+]*([A-Za-z_][A-Za-z0-9_]*)(?:(?:\s*:\s*|[\s+]+)([A-Za-z]+))?[\s+]*$/.exec(part);
    if (!m) throw new ParamSyntaxError(part.trim() === '' ? 'empty sort key' : `"${part.trim()}" is not attr[:asc|:desc]`);
    const attribute = m[1] as string;
    const def = spec.attributes.get(attribute);
    if (!def) throw new ParamSyntaxError(`unknown attribute "${attribute}"`);
    if (!def.sortable) throw new ParamSyntaxError(`cannot sort by "${attribute}"`);
    const direction = (m[2] ?? 'asc').toLowerCase();
    if (direction !== 'asc' && direction !== 'desc') throw new ParamSyntaxError(`direction of "${attribute}" must be asc or desc`);
    if (keys.some((k) => k.attribute === attribute)) throw new ParamSyntaxError(`"${attribute}" is listed twice`);
    keys.push({ attribute, direction: direction as SortDirection });
  }
  return keys;
}
