/**
 * oidc-provider's storage on DynamoDB (its `adapter` option): the like-for-like peer of section 9's
 * refresh comparison, a durable store on each side instead of our DynamoDB against its Map.
 *
 * One table, laid out like oidc-provider's contributed DynamoDB adapter
 * (example/adapters/contributed/dynamodb-gsi.ts in panva/node-oidc-provider), written here:
 *
 * - partition key `modelId` = `<Model>:<id>`; the payload as a map; `expiresAt` (epoch seconds,
 *   the table's TTL attribute) rounded up: kept at most a second longer, never dropped early (the
 *   models check the token's own `exp` exactly);
 * - three sparse KEYS_ONLY indexes: `grantId` (the grantable models only, as oidc-provider's
 *   memory adapter indexes them), `uid` and `userCode` (as `<Model>:<value>`, so a lookup never
 *   finds another model's item).
 *
 * Reads by key are strongly consistent: a refresh token consumed or rotated a moment ago must be
 * seen so, never an older copy. An index only yields the key; the item is then read by key (index
 * reads are eventually consistent in AWS). DynamoDB's TTL deletes expired items within days, not
 * on time, so `find` checks `expiresAt` itself, as the contributed adapter does.
 */
import { CreateTableCommand, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Adapter, AdapterPayload } from 'oidc-provider';

/** The models whose tokens `revokeByGrantId` removes (oidc-provider lib/adapters/memory_adapter.js `grantable`). */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
]);

const INDEXES = { grantId: 'grantIdIndex', uid: 'uidIndex', userCode: 'userCodeIndex' } as const;

interface Item {
  modelId: string;
  payload: AdapterPayload;
  expiresAt?: number;
  grantId?: string;
  uid?: string;
  userCode?: string;
}

export interface DynamoDbAdapterOptions {
  endpoint: string;
  tableName: string;
  /** The clock, in ms (tests move it to expire a token). */
  now?: () => number;
}

export function dynamoDbAdapterFactory(o: DynamoDbAdapterOptions): {
  Adapter: new (name: string) => Adapter;
  client: DynamoDBDocumentClient;
  createTable: () => Promise<void>;
} {
  const TableName = o.tableName;
  const now = o.now ?? Date.now;
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: o.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    { marshallOptions: { removeUndefinedValues: true } },
  );

  /** The keys of every item whose `attribute` (an index's key) is `value`, page by page. */
  async function keysWhere(attribute: keyof typeof INDEXES, value: string): Promise<string[]> {
    const keys: string[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName,
          IndexName: INDEXES[attribute],
          KeyConditionExpression: '#k = :v',
          ExpressionAttributeNames: { '#k': attribute },
          ExpressionAttributeValues: { ':v': value },
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) keys.push(String(item.modelId));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return keys;
  }

  class DynamoDbAdapter implements Adapter {
    constructor(private readonly name: string) {}

    private key(id: string) {
      return `${this.name}:${id}`;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number) {
      const item: Item = { modelId: this.key(id), payload };
      if (expiresIn) item.expiresAt = Math.ceil(now() / 1000 + expiresIn);
      if (GRANTABLE.has(this.name) && payload.grantId) item.grantId = payload.grantId;
      if (payload.uid) item.uid = this.key(payload.uid);
      if (payload.userCode) item.userCode = this.key(payload.userCode);
      await client.send(new PutCommand({ TableName, Item: item }));
    }

    async find(id: string) {
      const { Item: item } = await client.send(new GetCommand({ TableName, Key: { modelId: this.key(id) }, ConsistentRead: true }));
      if (!item) return undefined;
      const { payload, expiresAt } = item as Item;
      if (expiresAt !== undefined && expiresAt * 1000 <= now()) return undefined;
      return payload;
    }

    private async findBy(attribute: 'uid' | 'userCode', value: string) {
      const [key] = await keysWhere(attribute, this.key(value));
      return key ? this.find(key.slice(this.name.length + 1)) : undefined;
    }

    findByUid(uid: string) {
      return this.findBy('uid', uid);
    }

    findByUserCode(userCode: string) {
      return this.findBy('userCode', userCode);
    }

    async consume(id: string) {
      try {
        await client.send(
          new UpdateCommand({
            TableName,
            Key: { modelId: this.key(id) },
            // `consumed` is a DynamoDB reserved word: it needs a name placeholder.
            UpdateExpression: 'SET payload.#consumed = :at',
            // A token that is not there stays not there (no item made of `consumed` alone).
            ConditionExpression: 'attribute_exists(modelId)',
            ExpressionAttributeNames: { '#consumed': 'consumed' },
            ExpressionAttributeValues: { ':at': Math.floor(now() / 1000) },
          }),
        );
      } catch (err) {
        if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
      }
    }

    async destroy(id: string) {
      await client.send(new DeleteCommand({ TableName, Key: { modelId: this.key(id) } }));
    }

    /** Every token of the grant, whichever model (as the memory adapter's shared grant list does). */
    async revokeByGrantId(grantId: string) {
      const keys = await keysWhere('grantId', grantId);
      await Promise.all(keys.map((modelId) => client.send(new DeleteCommand({ TableName, Key: { modelId } }))));
    }
  }

  async function createTable() {
    const attributes = ['modelId', ...Object.keys(INDEXES)];
    try {
      await client.send(
        new CreateTableCommand({
          TableName,
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: [{ AttributeName: 'modelId', KeyType: 'HASH' }],
          AttributeDefinitions: attributes.map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
          GlobalSecondaryIndexes: Object.entries(INDEXES).map(([attribute, IndexName]) => ({
            IndexName,
            KeySchema: [{ AttributeName: attribute, KeyType: 'HASH' }],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          })),
        }),
      );
    } catch (err) {
      if ((err as { name?: string }).name !== 'ResourceInUseException') throw err;
      return;
    }
    await client.send(new UpdateTimeToLiveCommand({ TableName, TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true } }));
  }

  return { Adapter: DynamoDbAdapter, client, createTable };
}
