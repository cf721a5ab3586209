import * as v from 'valibot';
import { defineCollection, type FilterTerm, LIST_LIMITS } from '../../lists/index.ts';
import { ParamSyntaxError } from '../../lists/list-params.ts';
import { grammar, once } from '../../lists/list-query-schema.ts';
import { parseFields } from '../../lists/parse-fields.ts';
import { parseFilter, parseInstant } from '../../lists/parse-filter.ts';
import { EVENT_TYPES } from '../../records/event-record.ts';

/**
 * The events list (docs/events.md "Query API"): the record of shared/records/event-record.ts.
 * `q` may name `type`, `user_id`, `client_id` (each read by the store: the user through its
 * index, the others as filters) and `occurred_at` (a key range); nothing else is filterable, and
 * the order is fixed, newest first (the partition's order): `sort` is refused, whatever the
 * declaration says of the scalars.
 */
export const eventsCollection = defineCollection({
  name: 'events',
  attributes: {
    id: { type: 'uuid', filterable: false },
    type: 'string',
    occurred_at: 'timestamp',
    tenant_id: { type: 'uuid', filterable: false },
    client_id: 'string',
    user_id: 'uuid',
    actor: 'object',
    target: 'object',
    changed_fields: 'array',
    reason: { type: 'string', filterable: false, sortable: false },
    details: 'object',
    request_id: { type: 'string', filterable: false, sortable: false },
    source_ip: { type: 'string', filterable: false, sortable: false },
    user_agent: { type: 'string', filterable: false, sortable: false },
  },
  defaultSort: 'occurred_at:desc',
  keyOrder: ['occurred_at'],
});

/** What the event list parameters mean, after validation. */
export interface EventListParams {
  readonly limit: number;
  readonly cursor: string | undefined;
  /** `q` terms, ANDed (type, user_id, client_id, occurred_at). */
  readonly filter: readonly FilterTerm[];
  /** `from` (inclusive) and `to` (exclusive), ms since the epoch. */
  readonly from: number | undefined;
  readonly to: number | undefined;
  readonly fields: readonly string[] | undefined;
}

const described = <S extends v.GenericSchema>(schema: S, text: string) => v.pipe(schema, v.description(text));
const param = <T>(parse: (raw: string) => T, text: string) => v.optional(described(v.pipe(v.unknown(), once, grammar(parse)), text));

const limitMessage = `must be an integer between 1 and ${LIST_LIMITS.maxLimit}`;
function parseLimit(raw: string): number {
  if (!/^\d{1,9}$/.test(raw)) throw new ParamSyntaxError(limitMessage);
  const n = Number(raw);
  if (n < 1 || n > LIST_LIMITS.maxLimit) throw new ParamSyntaxError(limitMessage);
  return n;
}

const TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);
/** `q` on the events: the shared grammar (docs/lists.md §2), and `type` must name a catalogued type. */
function parseEventFilter(raw: string): FilterTerm[] {
  const terms = parseFilter(eventsCollection, raw);
  for (const [i, t] of terms.entries()) {
    if (t.attribute === 'type' && t.value.kind === 'string' && !TYPES.has(t.value.value)) {
      throw new ParamSyntaxError(`term ${i + 1} names an unknown event type (docs/events.md "Catalogue")`);
    }
  }
  return terms;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;
/** An instant: a date (its 00:00:00.000Z) or a date-time with a zone, as `q` timestamps are. */
function parseBound(raw: string): number {
  const ms = DATE.test(raw) || DATE_TIME.test(raw) ? parseInstant(raw) : Number.NaN;
  if (Number.isNaN(ms)) throw new ParamSyntaxError('must be an ISO 8601 date (2024-05-01) or date-time with a zone (2024-05-01T10:00:00Z)');
  return ms;
}

/** A parameter the events list refuses rather than ignores, so no caller reads a page it did not ask for. */
const refused = (accept: (raw: string) => boolean, message: string) =>
  param((raw) => {
    if (!accept(raw)) throw new ParamSyntaxError(message);
    return undefined;
  }, message);

/**
 * `GET /events` and `GET /users/{user_id}/events` (docs/events.md "Query API"): `limit`, `cursor`,
 * `q`, `from`, `to`, `fields`. The date range is `from`/`to` parameters rather than `q` operators:
 * the shared `q` grammar stays `=`-only for every list (docs/lists.md §2), and a range is one key
 * condition in the store. `offset` (beyond 0), `sort` and `total_count=true` are 400: events page by
 * cursor only, newest first, and no counter exists (a count would read the whole retention).
 */
export const eventListQuery = v.pipe(
  v.object({
    limit: param(parseLimit, `Items per page, 1 to ${LIST_LIMITS.maxLimit} (default ${LIST_LIMITS.defaultLimit}).`),
    cursor: param((raw) => {
      if (raw.length > LIST_LIMITS.maxCursorLength || !/^[A-Za-z0-9_-]*$/.test(raw)) throw new ParamSyntaxError('is not a valid cursor');
      return raw === '' ? undefined : raw;
    }, 'The `next_cursor` of the previous page.'),
    q: param(
      parseEventFilter,
      'Filter: `(type=login.failed)`, `(user_id=...)`, `(client_id=...)`, `(occurred_at=2025-03-01)` (that UTC day), joined with ` and `.',
    ),
    from: param(parseBound, 'Events at or after this instant (ISO 8601; a date alone is its 00:00 UTC).'),
    to: param(parseBound, 'Events before this instant (exclusive; a date alone is its 00:00 UTC).'),
    fields: param((raw) => parseFields(eventsCollection, raw), 'Comma-separated attributes to return (`fields=id,type`).'),
    offset: refused((raw) => /^0+$/.test(raw), 'events page with cursor only (next_cursor); offset must be 0'),
    sort: refused((raw) => raw.trim() === '', 'events are listed newest first only'),
    total_count: refused((raw) => raw === 'false', 'is not offered on events (no counter); only false is accepted'),
  }),
  v.forward(
    v.check((p) => p.from === undefined || p.to === undefined || p.from < p.to, 'must be later than from'),
    ['to'],
  ),
  v.transform(
    (p): EventListParams => ({
      limit: p.limit ?? LIST_LIMITS.defaultLimit,
      cursor: p.cursor,
      filter: p.q ?? [],
      from: p.from,
      to: p.to,
      fields: p.fields,
    }),
  ),
);
