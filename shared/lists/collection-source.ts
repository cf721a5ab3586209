/**
 * What `listCollection` needs from a repository. Implement it per list, or build it with
 * `querySource` (one DynamoDB partition of the table or an index) or `arraySource` (records
 * already in memory). Contract for implementers:
 *
 * - `id` identifies the list's records in the store, tenant included (e.g. the GSI1PK value
 *   `TENANT#t1#CLIENTS`); cursors are bound to it, so a cursor never crosses lists or tenants.
 * - `page` (optional) returns records in KEY order (GSI1SK = UUIDv7 id = creation order), at most
 *   `limit` of them, fewer only at the end of the collection, each with the key that resumes
 *   right after it (DynamoDB's ExclusiveStartKey). Offer it only when key order is the spec's
 *   `keyOrder` (id/creation); without it every request takes the general path.
 * - `all({max})` returns the whole collection, or at least `max + 1` records when it is bigger
 *   (it may stop there: the list refuses collections above `max`). No Scan: a paginated Query.
 * - `count` (optional): the collection's size cheaply (a counter item). Without it the fast path
 *   counts with `all` (or `querySource`'s Select COUNT).
 * - `expand` (optional): loads the child collections (`resources`, `resource_data`...) of the
 *   records of ONE page; called only with `expand=all`, after slicing, never for the whole set.
 */
export type StartKey = Readonly<Record<string, string | number>>;

export interface PageRequest {
  readonly limit: number;
  readonly startKey?: StartKey | undefined;
  /** Reverse key order (newest first). */
  readonly descending: boolean;
}

export interface PageEntry<T> {
  readonly item: T;
  readonly key: StartKey;
}

export interface CollectionSource<T> {
  readonly id: string;
  page?(request: PageRequest): Promise<PageEntry<T>[]>;
  all(options: { max: number }): Promise<T[]>;
  count?(): Promise<number>;
  expand?(items: T[]): Promise<T[]>;
}

type Row = Readonly<Record<string, unknown>>;

/**
 * A source over records already in memory (small child lists, tests). Key order is `id` order,
 * as in the table (UUIDv7 ids sort by creation).
 */
export function arraySource<T extends object>(
  id: string,
  records: readonly T[],
  hooks: Pick<CollectionSource<T>, 'expand'> = {},
): CollectionSource<T> {
  const idOf = (r: T) => String((r as Row).id);
  const sorted = [...records].sort((a, b) => (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0));
  return {
    id,
    async page({ limit, startKey, descending }) {
      const ordered = descending ? [...sorted].reverse() : sorted;
      const after = startKey?.id;
      const from = after === undefined ? 0 : ordered.findIndex((r) => (descending ? idOf(r) < String(after) : idOf(r) > String(after)));
      if (from < 0) return [];
      return ordered.slice(from, from + limit).map((item) => ({ item, key: { id: idOf(item) } }));
    },
    async all() {
      return [...sorted];
    },
    async count() {
      return sorted.length;
    },
    ...hooks,
  };
}

/**
 * A source of stored records seen through `view` (the list filters, sorts and shapes views), with
 * `expand` for the page's children. Keys and counts are the record source's own, so cursors stay
 * bound to the same store list.
 */
export function mapSource<R, T extends Row>(
  source: CollectionSource<R>,
  view: (record: R) => T,
  expand?: (items: T[]) => Promise<T[]>,
): CollectionSource<T> {
  const { page, count } = source;
  return {
    id: source.id,
    ...(page
      ? { page: async (request: PageRequest) => (await page.call(source, request)).map((e) => ({ item: view(e.item), key: e.key })) }
      : {}),
    all: async (options) => (await source.all(options)).map(view),
    ...(count ? { count: () => count.call(source) } : {}),
    ...(expand ? { expand } : {}),
  };
}
