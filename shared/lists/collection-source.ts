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
export function arraySource<T extends Row>(id: string, records: readonly T[], hooks: Pick<CollectionSource<T>, 'expand'> = {}): CollectionSource<T> {
  const sorted = [...records].sort((a, b) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0));
  return {
    id,
    async page({ limit, startKey, descending }) {
      const ordered = descending ? [...sorted].reverse() : sorted;
      const after = startKey?.id;
      const from = after === undefined ? 0 : ordered.findIndex((r) => (descending ? String(r.id) < String(after) : String(r.id) > String(after)));
      if (from < 0) return [];
      return ordered.slice(from, from + limit).map((item) => ({ item, key: { id: String(item.id) } }));
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
