import type { CollectionSource, PageEntry, StartKey } from './collection-source.ts';

/** The page shape repositories expose (shared/store/core/reads/collections.ts `CollectionPageRequest`). */
export interface RepositoryPageRequest {
  limit: number;
  exclusiveStartKey?: Record<string, unknown>;
  descending?: boolean;
}

export interface RepositoryPage<R> {
  items: R[];
  lastEvaluatedKey?: Record<string, unknown>;
}

export interface PagedSourceOptions<R, T> {
  /** The collection's identity, tenant included: the GSI1PK (`keys.collection(tenantId, 'CLIENTS')`). */
  readonly id: string;
  /** One Query page in id order (`(req) => clients.listPage(tenantId, req)`); also pages `all()` for `q` and non-default `sort`. */
  readonly listPage: (request: RepositoryPageRequest) => Promise<RepositoryPage<R>>;
  /** `() => clients.count(tenantId)` (the counter item). */
  readonly count?: () => Promise<number>;
  /**
   * The ExclusiveStartKey that resumes right after `record`: its table key plus its GSI1 key,
   * e.g. `{ ...keys.client(r.id), GSI1PK: keys.collection(r.tenant_id, 'CLIENTS'), GSI1SK: r.id }`.
   * Needed because a page reads one record more than it returns (to know `has_more`), so the
   * next page starts after a record that is not the last one read.
   */
  readonly keyOf: (record: R) => StartKey;
  /** The record as callers see it (drop secrets' hashes, rename); default: as is. */
  readonly view?: (record: R) => T;
  readonly expand?: (records: T[]) => Promise<T[]>;
}

/**
 * Adapts a repository's `listPage` / `count` to a `CollectionSource`. `page` keeps
 * calling `listPage` while DynamoDB stops short of the limit (its 1 MB cap), so the list sees
 * "fewer only at the end".
 */
export function pagedSource<R, T extends Record<string, unknown>>(options: PagedSourceOptions<R, T>): CollectionSource<T> {
  const view = options.view ?? ((r: R) => r as unknown as T);
  return {
    id: options.id,
    async page({ limit, startKey, descending }) {
      const entries: PageEntry<T>[] = [];
      let start: Record<string, unknown> | undefined = startKey;
      while (entries.length < limit) {
        const request: RepositoryPageRequest = { limit: limit - entries.length, descending };
        if (start) request.exclusiveStartKey = start;
        const { items, lastEvaluatedKey } = await options.listPage(request);
        for (const r of items) entries.push({ item: view(r), key: options.keyOf(r) });
        if (!lastEvaluatedKey) break;
        start = lastEvaluatedKey;
      }
      return entries.slice(0, limit);
    },
    // Pages through the collection and stops at `max + 1` records, so an oversized collection is
    // refused (docs/lists.md) after reading just past the cap, not after reading all of it.
    async all({ max }) {
      const out: T[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const request: RepositoryPageRequest = { limit: Math.min(1000, max + 1 - out.length) };
        if (start) request.exclusiveStartKey = start;
        const { items, lastEvaluatedKey } = await options.listPage(request);
        for (const r of items) out.push(view(r));
        start = lastEvaluatedKey;
      } while (start && out.length <= max);
      return out;
    },
    ...(options.count ? { count: options.count } : {}),
    ...(options.expand ? { expand: options.expand } : {}),
  };
}
