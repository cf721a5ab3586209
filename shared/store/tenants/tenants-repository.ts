import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict, isAppError } from '../../errors.ts';
import { SYSTEM_ACTOR_ID } from '../../records/common.ts';
import { DEFAULT_TENANT_ID, type TenantRecord } from '../../records/tenant-record.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { entity, toRecord } from '../core/entity.ts';
import { notExists } from '../core/expression.ts';
import { putMarker } from '../core/markers.ts';
import { queryAll } from '../core/reads/query-all.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { putItem, updateItem } from '../core/writes.ts';

/**
 * Tenants (docs/contract.md §4, §6). Item `TENANT#{id}` / `TENANT` (GSI1 `TENANTS` / id) holding the
 * TenantRecord; its name is unique through `UNIQUE#TENANT_NAME#{name}`; `TENANTS` / `COUNT`
 * counts them. Only what bootstrap and tenancy checks need is built so far.
 */
export interface TenantsRepository {
  /** Consistent read; undefined when there is no such tenant. */
  get(id: string): Promise<TenantRecord | undefined>;
  /** Creates the default tenant if missing (idempotent, race-safe); returns it either way. */
  ensureDefault(): Promise<TenantRecord>;
  /** Every tenant's id (the `TENANTS` collection, GSI1): for bootstrap's walks over all records. */
  listIds(): Promise<string[]>;
}

export function tenantsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): TenantsRepository {
  const get = async (id: string) => {
    const item = await getItem(db, tableName, keys.tenant(id), now());
    return item ? toRecord<TenantRecord>(item) : undefined;
  };
  return {
    get,
    async listIds() {
      const items = await queryAll(db, {
        TableName: tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'GSI1PK' },
        ExpressionAttributeValues: { ':pk': keys.tenantsCollection },
      });
      return items.map((i) => String(i.id));
    },
    async ensureDefault() {
      const existing = await get(DEFAULT_TENANT_ID);
      if (existing) return existing;
      const at = now().toISOString();
      const record: TenantRecord = {
        id: DEFAULT_TENANT_ID,
        tenant_name: 'default',
        tenant_metadata: [],
        is_default: true,
        version: 1,
        created_by: SYSTEM_ACTOR_ID,
        created_at: at,
        updated_by: SYSTEM_ACTOR_ID,
        updated_at: at,
      };
      try {
        await commitPlan(db, tableName, [
          [
            putItem(
              { ...keys.tenant(record.id), GSI1PK: keys.tenantsCollection, GSI1SK: record.id, ...entity('Tenant'), ...record },
              { condition: notExists },
            ),
            putMarker(keys.marker('TENANT_NAME', record.tenant_name), record.id, {
              onTaken: () => conflict('A tenant named "default" already exists.'),
            }),
            tenantsCount(1),
          ],
        ]);
      } catch (err) {
        // A concurrent start created it first: theirs is as good as ours.
        const created = isAppError(err) && err.status === 409 ? await get(DEFAULT_TENANT_ID) : undefined;
        if (!created) throw err;
        return created;
      }
      return record;
    },
  };
}

const tenantsCount = (delta: number) => {
  const e = entity('Counter');
  return updateItem(keys.tenantsCounter, {
    set: [
      ['type', e.type],
      ['schema_version', e.schema_version],
    ],
    add: [['count', delta]],
  });
};
