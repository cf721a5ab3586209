import type { CollectionSpec } from './collection-spec.ts';
import type { FilterTerm, FilterValue } from './list-params.ts';

/**
 * True when `item` satisfies every term (terms are ANDed). Comparison is by the attribute's type:
 * strings exactly (case-sensitive), UUIDs case-insensitively, numbers numerically, booleans as
 * booleans, timestamps as instants (a date matches its whole UTC day). A missing attribute only
 * matches `null`; it never equals `false`, `0` or `""`.
 */
export function matchesFilter(spec: CollectionSpec, item: Readonly<Record<string, unknown>>, terms: readonly FilterTerm[]): boolean {
  return terms.every((t) => matchesValue(spec.attributes.get(t.attribute)?.type, item[t.attribute], t.value));
}

function matchesValue(type: string | undefined, actual: unknown, expected: FilterValue): boolean {
  if (expected.kind === 'null') return actual === undefined || actual === null;
  if (actual === undefined || actual === null) return false;
  switch (expected.kind) {
    case 'string':
      return typeof actual === 'string' && (type === 'uuid' ? actual.toLowerCase() : actual) === expected.value;
    case 'number':
      return toNumber(actual) === expected.value;
    case 'boolean':
      return actual === expected.value;
    case 'instant': {
      const ms = toInstant(actual);
      return ms !== undefined && ms >= expected.from && ms < expected.to;
    }
  }
}

/** Records keep numbers as numbers; a numeric string (older schema) still compares. */
export function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Records keep timestamps as ISO strings; epoch milliseconds are tolerated. */
export function toInstant(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(ms) ? undefined : ms;
}
