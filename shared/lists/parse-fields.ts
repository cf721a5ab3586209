import { type CollectionSpec, isFieldName } from './collection-spec.ts';
import { ParamSyntaxError } from './list-params.ts';

/**
 * `fields=a,b` (spec §4.1): the attributes (or child collections) to return. Names are exact;
 * spaces around commas are ignored; a repeated name counts once. Empty: `undefined` (all).
 * Naming a child does not expand it: `fields=id,resources` shows `resources` only with
 * `expand=all`, because projection applies after expansion.
 */
export function parseFields(spec: CollectionSpec, raw: string): string[] | undefined {
  if (raw.trim() === '') return undefined;
  const names = new Set<string>();
  for (const part of raw.split(',')) {
    const name = part.trim();
    if (name === '') throw new ParamSyntaxError('empty attribute name');
    if (!isFieldName(spec, name)) throw new ParamSyntaxError(`unknown attribute "${name}"`);
    names.add(name);
  }
  return [...names];
}
