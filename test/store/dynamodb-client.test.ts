/**
 * shared/store/core/dynamodb-client.ts keeps DynamoDB endpoint discovery off whatever the environment
 * says: the Lambda bundles give its cache a stand-in LRU (infra/bundling/endpoint-lru-cache.ts)
 * that is never to be filled.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDocumentClient } from '#shared/store/core/dynamodb-client.ts';
import { createTestTable, TEST_BUDGET } from '../support/service/dynamodb.ts';

afterEach(() => vi.unstubAllEnvs());

type DiscoveryConfig = { endpointDiscoveryEnabled: () => Promise<boolean | undefined> };

describe('createDocumentClient: endpoint discovery', () => {
  it('is off in AWS (no endpoint) even where the environment turns it on', async () => {
    vi.stubEnv('AWS_ENDPOINT_DISCOVERY_ENABLED', 'true');
    const db = createDocumentClient({ region: 'eu-west-1', budget: TEST_BUDGET });
    await expect((db.config as unknown as DiscoveryConfig).endpointDiscoveryEnabled()).resolves.toBe(false);
  });

  it('is off with a custom endpoint too, and the client works against DynamoDB Local', async () => {
    vi.stubEnv('AWS_ENDPOINT_DISCOVERY_ENABLED', 'true');
    const { tableName, endpoint } = await createTestTable('discovery');
    const db = createDocumentClient({ region: 'local', endpoint, budget: TEST_BUDGET });
    await expect((db.config as unknown as DiscoveryConfig).endpointDiscoveryEnabled()).resolves.toBe(false);
    await db.send(new PutCommand({ TableName: tableName, Item: { PK: 'P', SK: 'S', v: 1 } }));
    expect((await db.send(new GetCommand({ TableName: tableName, Key: { PK: 'P', SK: 'S' } }))).Item).toEqual({ PK: 'P', SK: 'S', v: 1 });
  });
});
