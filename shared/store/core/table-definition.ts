/**
 * The single table's shape (docs/design.md §3.6). The CDK stack and the local runtime both build the
 * table from this one definition so they cannot drift. Access patterns: docs/data-model.md.
 */
export const TABLE_KEYS = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB deletes the item some time after it passes, reads treat it as gone at once. */
  ttlAttribute: 'ttl',
} as const;

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey: string;
}

/** GSIs, all projecting ALL attributes (lists read records from the index without a second read). */
export const TABLE_INDEXES: readonly IndexDefinition[] = [
  /** Collections: every record of one kind in one tenant, in id (= UUIDv7 = creation) order. */
  { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
  /** Lookups and reverse links (resource → its clients, user by email, ...). */
  { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
];

/**
 * The table's stream (docs/events.md "Streaming: the EventBridge bus"): new images only, which is
 * all the event forwarder reads; in AWS its event source mapping passes only inserted items whose
 * entity `type` is EVENT_ITEM_TYPE. A stream can be added to an existing table in place.
 */
export const TABLE_STREAM = { viewType: 'NEW_IMAGE' } as const;

/** The entity type of a security event item (shared/store/events/event-items.ts). */
export const EVENT_ITEM_TYPE = 'Event';

/**
 * The CreateTable input used locally (and by tests); CDK maps the same fields to `TableV2`. With
 * `stream`, the table has TABLE_STREAM (locally: when something reads it, `npm start`).
 */
export function createTableInput(tableName: string, options: { stream?: boolean } = {}) {
  const attrs = new Set<string>([TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey]);
  for (const i of TABLE_INDEXES) {
    attrs.add(i.partitionKey);
    attrs.add(i.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [...attrs].map((AttributeName) => ({ AttributeName, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: TABLE_INDEXES.map((i) => ({
      IndexName: i.indexName,
      KeySchema: [
        { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
    ...(options.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE_STREAM.viewType } } : {}),
  };
}
