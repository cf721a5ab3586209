import type { AttributeType, CollectionSpec, SortKey } from './collection-spec.ts';
import { toInstant, toNumber } from './match-filter.ts';

type Item = Readonly<Record<string, unknown>>;

/**
 * A total order for `sort`: each key compares values as the attribute's type; missing values
 * come last in ascending order and first in descending (PostgreSQL's NULLS LAST/FIRST default);
 * ties are broken by `id` in the first key's direction, so the order is total and matches the
 * index order (id = UUIDv7) that the fast path pages in either direction.
 */
export function compareItems(spec: CollectionSpec, sort: readonly SortKey[]): (a: Item, b: Item) => number {
  const keys = sort.map((k) => ({ ...k, type: spec.attributes.get(k.attribute)?.type ?? 'string', sign: k.direction === 'asc' ? 1 : -1 }));
  const idSign = sort[0]?.direction === 'desc' ? -1 : 1;
  return (a, b) => {
    for (const k of keys) {
      const c = compareValues(k.type, a[k.attribute], b[k.attribute]);
      if (c !== 0) return c * k.sign;
    }
    return compareValues('uuid', a.id, b.id) * idSign;
  };
}

function compareValues(type: AttributeType, x: unknown, y: unknown): number {
  const a = normalize(type, x);
  const b = normalize(type, y);
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (type === 'string') {
    // Case-insensitive first (what a person sorting names expects), then exact code units so
    // "a" and "A" still have a fixed order that does not depend on the runtime's locale data.
    const la = String(a).toLowerCase();
    const lb = String(b).toLowerCase();
    if (la !== lb) return la < lb ? -1 : 1;
  }
  return a === b ? 0 : String(a) < String(b) ? -1 : 1;
}

/** Values of the wrong type (a schema drift) sort as missing rather than throwing. */
function normalize(type: AttributeType, v: unknown): string | number | undefined {
  if (v === undefined || v === null) return undefined;
  switch (type) {
    case 'number':
      return toNumber(v);
    case 'timestamp':
      return toInstant(v);
    case 'boolean':
      return typeof v === 'boolean' ? Number(v) : undefined;
    case 'uuid':
      return typeof v === 'string' ? v.toLowerCase() : undefined;
    default:
      return typeof v === 'string' ? v : undefined;
  }
}
