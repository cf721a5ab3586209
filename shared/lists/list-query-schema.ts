import * as v from 'valibot';
import type { CollectionSpec } from './collection-spec.ts';
import { LIST_LIMITS, type ListParams, ParamSyntaxError, type RecordParams } from './list-params.ts';
import { parseFields } from './parse-fields.ts';
import { parseFilter } from './parse-filter.ts';
import { parseSort } from './parse-sort.ts';

/**
 * valibot schemas for the list parameters (docs/contract.md §3), usable as `httpHandler({ query })` so the
 * pipeline's `validate` names the parameter (`query.limit: ...`). Unknown parameters are ignored.
 * A value may arrive as an array when the caller merged `multiValueQueryStringParameters`
 * in: one element is that value, more is a 400 (never a crash).
 */

export const once = v.rawTransform<unknown, string>(({ dataset, addIssue, NEVER }) => {
  const x = dataset.value;
  if (typeof x === 'string') return x;
  if (Array.isArray(x) && x.length === 1 && typeof x[0] === 'string') return x[0];
  addIssue({ message: Array.isArray(x) && x.length > 1 ? 'must be given at most once' : 'must be a string' });
  return NEVER;
});

/** Wraps a grammar parser: its ParamSyntaxError becomes the parameter's issue. */
export const grammar = <T>(parse: (raw: string) => T) =>
  v.rawTransform<string, T>(({ dataset, addIssue, NEVER }) => {
    try {
      return parse(dataset.value);
    } catch (e) {
      if (!(e instanceof ParamSyntaxError)) throw e;
      addIssue({ message: e.message });
      return NEVER;
    }
  });

const integer = (message: string, min: number) =>
  v.pipe(
    v.unknown(),
    once,
    // Digits only: no sign, exponent, spaces or fractions slip through Number().
    v.regex(/^\d{1,9}$/, message),
    v.transform(Number),
    v.minValue(min, message),
  ) as unknown as v.GenericSchema<unknown, number>;

const choice = <T>(values: Record<string, T>, message: string) =>
  v.pipe(
    v.unknown(),
    once,
    v.check((s) => Object.hasOwn(values, s), message),
    v.transform((s) => values[s] as T),
  );

const offsetMessage = 'must be an integer >= 0';
const offset = v.pipe(
  integer(offsetMessage, 0),
  v.maxValue(
    LIST_LIMITS.maxOffset,
    `must be at most ${LIST_LIMITS.maxOffset}; page deeper with cursor (next_cursor), which costs the same at any depth`,
  ),
);
const limitMessage = `must be an integer between 1 and ${LIST_LIMITS.maxLimit}`;
const limit = v.pipe(integer(limitMessage, 1), v.maxValue(LIST_LIMITS.maxLimit, limitMessage));
const expand = choice({ '': false, all: true }, 'must be empty or "all"');
const totalCount = choice({ true: true, false: false }, 'must be true or false');
const cursor = v.pipe(
  v.unknown(),
  once,
  v.maxLength(LIST_LIMITS.maxCursorLength, 'is not a valid cursor'),
  v.regex(/^[A-Za-z0-9_.-]*$/, 'is not a valid cursor'),
  // `cursor=` (empty) is the first page: clients often send the parameter unconditionally.
  v.transform((s) => (s === '' ? undefined : s)),
);

/** The parameter's meaning in the OpenAPI document (docs/openapi.md); validation ignores it. */
const described = <S extends v.GenericSchema>(schema: S, text: string) => v.pipe(schema, v.description(text));

const recordEntries = (spec: CollectionSpec) => ({
  fields: v.optional(
    described(
      v.pipe(
        v.unknown(),
        once,
        grammar((s) => parseFields(spec, s)),
      ),
      'Comma-separated attributes to return (`fields=id,name`); an unknown name is a 400.',
    ),
  ),
  expand: v.optional(
    described(
      expand,
      '`all` adds the child collections and linked `*_data` records; empty (default) shows their counts in `aggregations`.',
    ),
    '',
  ),
});

/** `fields` + `expand` of GET/POST/PATCH of one record. */
export function recordQuerySchema(spec: CollectionSpec): v.GenericSchema<unknown, RecordParams> {
  return v.pipe(
    v.object(recordEntries(spec)),
    v.transform((p): RecordParams => ({ fields: p.fields, expand: p.expand })),
  );
}

/** Every list parameter; see docs/lists.md for the grammar of each. */
export function listQuerySchema(spec: CollectionSpec): v.GenericSchema<unknown, ListParams> {
  return v.pipe(
    v.object({
      ...recordEntries(spec),
      offset: v.optional(described(offset, `Items to skip (0 to ${LIST_LIMITS.maxOffset}); deeper pages: \`cursor\`.`)),
      limit: v.optional(described(limit, `Items per page, 1 to ${LIST_LIMITS.maxLimit}.`), String(LIST_LIMITS.defaultLimit)),
      q: v.optional(
        described(
          v.pipe(
            v.unknown(),
            once,
            grammar((s) => parseFilter(spec, s)),
          ),
          'Filter: `(attr=value)`, terms joined with ` and ` (`q=(client_type=spa) and (is_public=true)`).',
        ),
        '',
      ),
      sort: v.optional(
        described(
          v.pipe(
            v.unknown(),
            once,
            grammar((s) => parseSort(spec, s)),
          ),
          '`attr[:asc|:desc],...`; default `created_at:asc`.',
        ),
      ),
      total_count: v.optional(described(totalCount, '`true` adds `total_count` to the envelope.'), 'false'),
      cursor: v.optional(described(cursor, 'The `next_cursor` of the previous page (instead of `offset`).')),
    }),
    v.forward(
      v.check((p) => !(p.cursor !== undefined && (p.offset ?? 0) > 0), 'cannot be combined with offset; a cursor carries its own position'),
      ['cursor'],
    ),
    v.transform(
      (p): ListParams => ({
        offset: p.offset ?? 0,
        limit: p.limit,
        fields: p.fields,
        expand: p.expand,
        filter: p.q,
        sort: p.sort,
        totalCount: p.total_count,
        cursor: p.cursor,
      }),
    ),
  ) as unknown as v.GenericSchema<unknown, ListParams>;
}
