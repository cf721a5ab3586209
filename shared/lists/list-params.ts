import type { SortKey } from './collection-spec.ts';

/** The limits of docs/contract.md §3 and the ones it left to us (docs/lists.md). */
export const LIST_LIMITS = {
  defaultLimit: 10,
  maxLimit: 100,
  /**
   * `offset` N costs N discarded reads on the fast path; beyond this, page with `cursor`, which
   * costs O(limit) at any depth.
   */
  maxOffset: 10_000,
  /** `q` or a non-default `sort` read the whole collection; refuse collections above this. */
  maxScanItems: 20_000,
  maxQueryLength: 2_000,
  maxFilterTerms: 20,
  maxCursorLength: 2_048,
} as const;

/** A parsed `q` term. `value` is already of the attribute's type (see match-filter.ts). */
export type FilterValue =
  | { kind: 'null' }
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean }
  /** An instant, or a whole UTC day `[from, to)` when the value was a date. */
  | { kind: 'instant'; from: number; to: number };

export interface FilterTerm {
  readonly attribute: string;
  readonly value: FilterValue;
}

/** What the list parameters of one request mean, after validation. */
export interface ListParams {
  readonly offset: number;
  readonly limit: number;
  /** `undefined`: every attribute. */
  readonly fields: readonly string[] | undefined;
  readonly expand: boolean;
  /** ANDed; empty: no filter. */
  readonly filter: readonly FilterTerm[];
  /** `undefined`: the collection's default order. */
  readonly sort: readonly SortKey[] | undefined;
  readonly totalCount: boolean;
  readonly cursor: string | undefined;
}

/** `fields` and `expand` of a single-record read or write. */
export interface RecordParams {
  readonly fields: readonly string[] | undefined;
  readonly expand: boolean;
}

/** Thrown by the grammar parsers; the schema turns it into an issue on the parameter. */
export class ParamSyntaxError extends Error {
  override readonly name = 'ParamSyntaxError';
}
