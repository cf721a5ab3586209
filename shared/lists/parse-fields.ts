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
  for (const [i, part] of raw.split(',').entries()) {
    const name = part.trim();
    // docs/contract.md §8: a message names the field by its place (1-based), never quotes what was sent.
    if (name === '') throw new ParamSyntaxError(`field ${i + 1} is empty`);
    if (!isFieldName(spec, name)) throw new ParamSyntaxError(`field ${i + 1} names an unknown attribute`);
    names.add(name);
  }
  return [...names];
}
