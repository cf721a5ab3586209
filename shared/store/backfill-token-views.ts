import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TokenGrants } from '../records/client-record.ts';
import type { ResourceRecord } from '../records/resource-record.ts';
import { readClientPartition } from './client-partition.ts';
import { collectionAll } from './collections.ts';
import { commitPlan } from './commit-plan.ts';
import { SCHEMA_VERSION, toRecord } from './entity.ts';
import { and, equals } from './expression.ts';
import { keys } from './keys.ts';
import { queryAll } from './query-all.ts';
import { getItem } from './read-items.ts';
import { identifierMarkerKey, tokenViewOf } from './resource-token-view.ts';
import { withRetries } from './retry.ts';
import { checkItem, putItem, updateItem } from './writes.ts';

export interface BackfillResult {
  /** Client items that got `token_grants`. */
  clients: number;
  /** Identifier markers that got `token_view`. */
  resources: number;
  /** True when an earlier run had finished (one GetItem, nothing else read). */
  alreadyDone: boolean;
}

const DONE = keys.migration('TOKEN_VIEWS');

/**
 * Adds what the one-read token path needs to data written before it existed (docs/data-model.md
 * "Migrations"): `token_grants` on every client item and `token_view` on every identifier marker.
 * Until an item has it, readers fall back to the old reads (correct, just not one read), but link,
 * permission and scope writes need it in place, so bootstrap runs this before the service serves.
 * Idempotent and safe alongside management writes: each item is written under the condition that
 * what it was computed from has not changed (`links_version`, `version`), and re-read if it has.
 * A marker item records completion, so every later start costs one GetItem.
 */
export async function backfillTokenViews(db: DynamoDBDocumentClient, tableName: string, now: () => Date): Promise<BackfillResult> {
  if (await getItem(db, tableName, DONE, now())) return { clients: 0, resources: 0, alreadyDone: true };
  const result: BackfillResult = { clients: 0, resources: 0, alreadyDone: false };
  const tenants = await queryAll(db, {
    TableName: tableName,
    IndexName: 'GSI1',
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': 'GSI1PK' },
    ExpressionAttributeValues: { ':pk': keys.tenantsCollection },
  });
  for (const tenant of tenants) {
    const tenantId = String(tenant.id);
    for (const item of await collectionAll(db, tableName, tenantId, 'CLIENTS')) {
      if (item.token_grants === undefined && (await backfillClient(db, tableName, String(item.id)))) result.clients++;
    }
    for (const item of await collectionAll(db, tableName, tenantId, 'RESOURCES')) {
      if (await backfillResource(db, tableName, String(item.id), now)) result.resources++;
    }
  }
  await commitPlan(db, tableName, [[putItem({ ...DONE, type: 'Migration', schema_version: SCHEMA_VERSION, at: now().toISOString(), ...result })]]);
  return result;
}

/** The client's grants from its partition, written only if no link or permission changed since the read. */
function backfillClient(db: DynamoDBDocumentClient, tableName: string, clientId: string): Promise<boolean> {
  return withRetries(async () => {
    const p = await readClientPartition(db, tableName, clientId);
    if (!p || p.client.token_grants) return false;
    const grants: TokenGrants = Object.fromEntries([...p.links.keys()].map((r) => [r, {}]));
    for (const x of p.permissions) (grants[x.resource_id] ??= {})[x.scope_id] = true;
    await commitPlan(db, tableName, [[
      updateItem(keys.client(clientId), {
        set: [['token_grants', grants]],
        condition: and(equals('links_version', p.client.links_version), (x) => `attribute_not_exists(${x.name('token_grants')})`),
      }),
    ]]);
    return true;
  });
}

/** The resource's view onto its marker, written only if the resource did not change since the read. */
function backfillResource(db: DynamoDBDocumentClient, tableName: string, resourceId: string, now: () => Date): Promise<boolean> {
  return withRetries(async () => {
    const item = await getItem(db, tableName, keys.resource(resourceId), now());
    if (!item) return false;
    const r = toRecord<ResourceRecord>(item);
    const marker = await getItem(db, tableName, identifierMarkerKey(r), now());
    if (!marker || marker.token_view !== undefined) return false;
    await commitPlan(db, tableName, [[
      updateItem(identifierMarkerKey(r), { set: [['token_view', tokenViewOf(r)]], condition: equals('target_id', r.id) }),
      checkItem(keys.resource(r.id), and(equals('version', r.version), equals('links_version', r.links_version))),
    ]]);
    return true;
  });
}
