import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { notFound } from '../../../errors.ts';
import type { CollectionSource } from '../../../lists/collection-source.ts';
import type { RepositoryPage, RepositoryPageRequest } from '../../../lists/paged-source.ts';
import { entity, toRecord } from '../entity.ts';
import { type CollectionKind, keys } from '../table-keys.ts';
import { updateItem, type Write } from '../writes.ts';
import { queryAll, queryPage } from './query-all.ts';
import { querySource } from './query-source.ts';
import { getItem } from './read-items.ts';

type Item = Record<string, unknown>;

/**
 * One page of a tenant's collection in id (= creation) order: the shapes shared/lists pages with
 * (`exclusiveStartKey` is the previous page's `lastEvaluatedKey`, opaque; the list machinery signs
 * it into a cursor).
 */
export type CollectionPageRequest = RepositoryPageRequest;
export type CollectionPage<T> = RepositoryPage<T>;

const byCollection = (tableName: string, gsi1pk: string) => ({
  TableName: tableName,
  IndexName: 'GSI1',
  KeyConditionExpression: '#pk = :pk',
  ExpressionAttributeNames: { '#pk': 'GSI1PK' },
  ExpressionAttributeValues: { ':pk': gsi1pk },
});

export async function collectionPage(
  db: DynamoDBDocumentClient,
  tableName: string,
  tenantId: string,
  kind: CollectionKind,
  req: CollectionPageRequest,
): Promise<CollectionPage<Item>> {
  return queryPage(db, {
    ...byCollection(tableName, keys.collection(tenantId, kind)),
    Limit: req.limit,
    ScanIndexForward: !req.descending,
    ...(req.exclusiveStartKey ? { ExclusiveStartKey: req.exclusiveStartKey } : {}),
  });
}

export function collectionAll(db: DynamoDBDocumentClient, tableName: string, tenantId: string, kind: CollectionKind): Promise<Item[]> {
  return queryAll(db, byCollection(tableName, keys.collection(tenantId, kind)));
}

/** `total_count`: one GetItem of the counter kept exact by every create/delete transaction. */
export async function collectionCount(
  db: DynamoDBDocumentClient,
  tableName: string,
  tenantId: string,
  kind: CollectionKind,
  now: Date,
): Promise<number> {
  const item = await getItem(db, tableName, keys.collectionCounter(tenantId, kind), now);
  return typeof item?.count === 'number' ? item.count : 0;
}

/** Set on a tenant's counters by the tenant's delete (store/tenants/tenants-repository.ts). */
export const TENANT_DELETED = 'tenant_deleted';

/**
 * The counter write that goes into a create (+1) or delete (-1) transaction. An increment requires
 * the tenant not deleted: the tenant's delete marks its counters in the transaction that checks
 * them at 0, so a create that read the tenant before the delete still cannot commit into it
 * (docs/tenants.md "Deleting a tenant").
 */
export function countWrite(tenantId: string, kind: CollectionKind, delta: number): Write {
  const e = entity('Counter');
  return updateItem(keys.collectionCounter(tenantId, kind), {
    set: [
      ['type', e.type],
      ['schema_version', e.schema_version],
    ],
    add: [['count', delta]],
    ...(delta > 0
      ? { condition: (x) => `attribute_not_exists(${x.name(TENANT_DELETED)})`, onFail: () => notFound('The tenant no longer exists.') }
      : {}),
  });
}

/**
 * A tenant's collection of one kind as a list source (shared/lists): pages in id (= creation)
 * order straight from GSI1, each record with the key that resumes after it, the exact counter for
 * `total_count`, a paginated Query (never a Scan) for the general path. Every repository of a
 * tenant-owned entity exposes its list with this one call, so no use case builds a table key.
 */
export function tenantCollection<R>(
  db: DynamoDBDocumentClient,
  tableName: string,
  tenantId: string,
  kind: CollectionKind,
  now: () => Date,
): CollectionSource<R> {
  const partition = keys.collection(tenantId, kind);
  const source = querySource<R>(db, tableName, {
    indexName: 'GSI1',
    partition,
    toRecord: (item) => toRecord<R>(item),
    count: () => collectionCount(db, tableName, tenantId, kind, now()),
  });
  // Cursors are bound to the collection's partition, as they were before this source existed.
  return { ...source, id: partition };
}

/**
 * What a repository of a tenant-owned entity exposes about its collection, written once: the list
 * source, a raw page (`listPage`, for callers that page by hand), the whole collection and the
 * exact count.
 */
export function tenantCollectionMethods<R>(db: DynamoDBDocumentClient, tableName: string, kind: CollectionKind, now: () => Date) {
  return {
    collection: (tenantId: string): CollectionSource<R> => tenantCollection<R>(db, tableName, tenantId, kind, now),
    async listPage(tenantId: string, request: CollectionPageRequest): Promise<CollectionPage<R>> {
      const page = await collectionPage(db, tableName, tenantId, kind, request);
      return { ...page, items: page.items.map((i) => toRecord<R>(i)) };
    },
    async listAll(tenantId: string): Promise<R[]> {
      return (await collectionAll(db, tableName, tenantId, kind)).map((i) => toRecord<R>(i));
    },
    count: (tenantId: string): Promise<number> => collectionCount(db, tableName, tenantId, kind, now()),
  };
}
