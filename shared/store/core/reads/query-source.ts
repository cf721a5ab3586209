import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CollectionSource } from '../../../lists/collection-source.ts';
import { TABLE_INDEXES, TABLE_KEYS } from '../table-definition.ts';
import { countQuery, type PartitionQuery, queryPage, startKeyOf } from './query-page.ts';

type Item = Record<string, unknown>;

export interface QuerySourceOptions<T> extends Omit<PartitionQuery, 'descending'> {
  /** Stored item → record (drop keys, type, version; rename). Default: drop the key attributes. */
  readonly toRecord?: (item: Item) => T;
  /** A cheaper count (a counter item); default: Select COUNT over the partition. */
  readonly count?: () => Promise<number>;
  /**
   * Whether the partition's sort key orders records by their UUIDv7 id (GSI1SK = id): then
   * `page` serves the default order directly. Default true. Set false when it orders them by
   * something else (a link item whose SK is the far end's id): every request then takes the
   * general path, which sorts by the requested attribute.
   */
  readonly sortKeyIsId?: boolean;
  /** Loads children of one page's records for `expand=all`. */
  readonly expand?: (records: T[]) => Promise<T[]>;
}

/**
 * A `CollectionSource` over one partition, typically a tenant's collection in GSI1 (GSI1PK =
 * collection, GSI1SK = UUIDv7 id): `page` is a Query with Limit/ExclusiveStartKey, `all` a
 * paginated Query (never a Scan). A repository exposes its lists with one call:
 *
 *   querySource(db, table, { indexName: 'GSI1', partition: keys.clientsCollection(tenantId), toRecord })
 */
export function querySource<T = Item>(db: DynamoDBDocumentClient, tableName: string, options: QuerySourceOptions<T>): CollectionSource<T> {
  const { toRecord = stripKeys as (item: Item) => T, count, expand, sortKeyIsId = true, ...partition } = options;
  const source: CollectionSource<T> = {
    id: `${partition.indexName ?? 'table'}|${partition.partition}|${partition.sortKeyPrefix ?? ''}`,
    async all({ max }) {
      // max + 1 is enough to know the collection is too big; reading on would waste capacity.
      const { items } = await queryPage(db, tableName, { ...partition, limit: max + 1 });
      return items.map(toRecord);
    },
    count: count ?? (() => countQuery(db, tableName, partition)),
    ...(expand ? { expand } : {}),
  };
  if (sortKeyIsId) {
    source.page = async ({ limit, startKey, descending }) => {
      const { items } = await queryPage(db, tableName, { ...partition, descending, limit, exclusiveStartKey: startKey });
      return items.map((item) => ({ item: toRecord(item), key: startKeyOf(item, partition.indexName) }));
    };
  }
  return source;
}

const KEY_ATTRIBUTES = new Set<string>([
  TABLE_KEYS.partitionKey,
  TABLE_KEYS.sortKey,
  ...TABLE_INDEXES.flatMap((i) => [i.partitionKey, i.sortKey]),
]);

/** The default `toRecord`: the stored item minus the table's and indexes' key attributes. */
export function stripKeys(item: Item): Item {
  return Object.fromEntries(Object.entries(item).filter(([k]) => !KEY_ATTRIBUTES.has(k)));
}
