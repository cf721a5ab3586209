import { badRequest } from '../errors.ts';
import type { CollectionSource } from './collection-source.ts';
import type { CollectionSpec, SortDirection, SortKey } from './collection-spec.ts';
import { sortItems } from './compare-items.ts';
import { type CursorBinding, type CursorState, openCursor, queryFingerprint, sealCursor } from './cursor.ts';
import { LIST_LIMITS, type ListParams } from './list-params.ts';
import { matchesFilter } from './match-filter.ts';
import { shapeItem, wantsChildren } from './shape-item.ts';

type Row = Readonly<Record<string, unknown>>;

/** The collection envelope (spec §2.1) plus `next_cursor` (docs/contract.md §3). */
export interface ListEnvelope {
  total_count?: number;
  count: number;
  has_more: boolean;
  limit: number;
  offset: number;
  items: Record<string, unknown>[];
  next_cursor?: string;
}

export interface ListCollectionInput<T extends Row> {
  readonly spec: CollectionSpec;
  readonly source: CollectionSource<T>;
  readonly params: ListParams;
  /** `await runtime.serviceSecret('cursor')`. */
  readonly cursorKey: Buffer;
}

interface Page<T> {
  readonly records: T[];
  readonly hasMore: boolean;
  readonly position: number;
  readonly next: CursorState | undefined;
  readonly total: number | undefined;
}

/**
 * Runs one list request (docs/lists.md). FAST PATH (no `q`, sort = the store's key order in
 * either direction, source has `page`): pages the index: O(offset + limit) items read, O(limit)
 * with a cursor. GENERAL PATH (anything else): reads the collection (refused above
 * LIST_LIMITS.maxScanItems), filters, sorts, slices. Children are loaded for the returned page
 * only, then `expand` and `fields` shape each item.
 */
export async function listCollection<T extends Row>(input: ListCollectionInput<T>): Promise<ListEnvelope> {
  const { spec, source, params, cursorKey } = input;
  const sort = params.sort ?? spec.defaultSort;
  const direction = params.filter.length === 0 && source.page ? keyOrderDirection(spec, sort) : undefined;
  const binding: CursorBinding = {
    collection: `${spec.name}|${source.id}`,
    query: queryFingerprint(direction ? { path: 'key', direction } : { path: 'scan', filter: params.filter, sort }),
  };
  const cursor = params.cursor === undefined ? undefined : openCursor(cursorKey, binding, params.cursor);

  const page =
    direction && source.page
      ? await keyOrderPage(source, source.page.bind(source), params, direction, cursor)
      : await scanPage(spec, source, params, sort, cursor);

  let records = page.records;
  if (source.expand && records.length > 0 && wantsChildren(spec, params)) records = await source.expand(records);
  const envelope: ListEnvelope = {
    // Spread first so `total_count` leads, in the spec's order, and is absent unless asked for.
    ...(page.total === undefined ? {} : { total_count: page.total }),
    count: records.length,
    has_more: page.hasMore,
    limit: params.limit,
    offset: page.position,
    items: records.map((r) => shapeItem(spec, r, params)),
  };
  if (page.next) envelope.next_cursor = sealCursor(cursorKey, binding, page.next);
  return envelope;
}

/**
 * The fast path is exact only when the requested order IS the key order: one key-order
 * attribute (id, creation time), optionally followed by `id` in the same direction (ties on the
 * creation time are broken by id in both paths).
 */
function keyOrderDirection(spec: CollectionSpec, sort: readonly SortKey[]): SortDirection | undefined {
  const [first, second, ...rest] = sort;
  if (!first || rest.length > 0 || !spec.keyOrder.has(first.attribute)) return undefined;
  if (second && !(second.attribute === 'id' && second.direction === first.direction)) return undefined;
  return first.direction;
}

async function keyOrderPage<T extends Row>(
  source: CollectionSource<T>,
  pageOf: NonNullable<CollectionSource<T>['page']>,
  params: ListParams,
  direction: SortDirection,
  cursor: CursorState | undefined,
): Promise<Page<T>> {
  // Unreachable unless a key-order cursor was sealed without its key: refuse rather than restart.
  if (cursor && !cursor.startKey)
    throw badRequest('query.cursor: is invalid, or belongs to another list or query; start again without cursor');
  // With a cursor, resume after its key; with an offset, read and discard `offset` records (the
  // documented O(offset) cost). One extra record tells whether there is a next page.
  const skip = cursor ? 0 : params.offset;
  const [entries, total] = await Promise.all([
    pageOf({ limit: skip + params.limit + 1, startKey: cursor?.startKey, descending: direction === 'desc' }),
    params.totalCount ? countOf(source) : undefined,
  ]);
  const pageEntries = entries.slice(skip, skip + params.limit);
  const position = cursor?.position ?? params.offset;
  const hasMore = entries.length > skip + params.limit;
  const last = pageEntries.at(-1);
  return {
    records: pageEntries.map((e) => e.item),
    hasMore,
    position,
    next: hasMore && last ? { position: position + pageEntries.length, startKey: last.key } : undefined,
    total,
  };
}

async function scanPage<T extends Row>(
  spec: CollectionSpec,
  source: CollectionSource<T>,
  params: ListParams,
  sort: readonly SortKey[],
  cursor: CursorState | undefined,
): Promise<Page<T>> {
  const max = LIST_LIMITS.maxScanItems;
  const all = await source.all({ max });
  if (all.length > max) {
    const param = params.filter.length > 0 ? 'query.q' : params.sort ? 'query.sort' : 'query';
    throw badRequest(
      `${param}: this list has more than ${max} records, too many to filter or sort; list in the default order and page with cursor`,
    );
  }
  const filtered = params.filter.length > 0 ? all.filter((r) => matchesFilter(spec, r, params.filter)) : all;
  const matched = sortItems(spec, filtered, sort);
  const position = cursor?.position ?? params.offset;
  const records = matched.slice(position, position + params.limit);
  const hasMore = position + records.length < matched.length;
  return {
    records,
    hasMore,
    position,
    next: hasMore ? { position: position + records.length } : undefined,
    // The filtered count, exact and free here: we hold every match.
    total: params.totalCount ? matched.length : undefined,
  };
}

async function countOf<T extends Row>(source: CollectionSource<T>): Promise<number> {
  if (source.count) return source.count();
  return (await source.all({ max: Number.MAX_SAFE_INTEGER - 1 })).length;
}
