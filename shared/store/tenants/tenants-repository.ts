import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict, forbidden, isAppError, notFound } from '../../errors.ts';
import type { CollectionSource } from '../../lists/collection-source.ts';
import { newAuditFields, SYSTEM_ACTOR_ID } from '../../records/common.ts';
import {
  DEFAULT_TENANT_ID,
  type NewTenant,
  TENANT_HELD_KINDS,
  type TenantHeldKind,
  type TenantPatch,
  type TenantRecord,
} from '../../records/tenant-record.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { entity, toRecord } from '../core/entity.ts';
import { and, type Condition, equals, exists, notExists } from '../core/expression.ts';
import { deleteMarker, putMarker } from '../core/markers.ts';
import { TENANT_DELETED } from '../core/reads/collections.ts';
import { queryAll } from '../core/reads/query-all.ts';
import { querySource } from '../core/reads/query-source.ts';
import { getItem, getItems } from '../core/reads/read-items.ts';
import { withRetries } from '../core/retry.ts';
import { type CollectionKind, keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { updateWithRetry, versionedUpdate } from '../core/versioned-update.ts';
import { deleteItem, keyString, putItem, updateItem, type Write } from '../core/writes.ts';

/**
 * Tenants (docs/contract.md §4, §6; docs/tenants.md). Item `TENANT#{id}` / `TENANT` (GSI1 `TENANTS` / id)
 * holding the TenantRecord; its name is unique through `UNIQUE#TENANT_NAME#{name}`, put, moved and
 * deleted in the same transaction as the record; `TENANTS` / `COUNT` counts them.
 */
export interface TenantsRepository {
  /** Consistent read; undefined when there is no such tenant. */
  get(id: string): Promise<TenantRecord | undefined>;
  /** Creates the default tenant if missing (idempotent, race-safe); returns it either way. */
  ensureDefault(): Promise<TenantRecord>;
  /** Every tenant's id (the `TENANTS` collection, GSI1): for bootstrap's walks over all records. */
  listIds(): Promise<string[]>;
}

/** What the Tenants API adds to the reads above (shared/management/tenants/). */
export interface TenantsAdminRepository extends TenantsRepository {
  /** The tenant with its name marker and the tenants counter in one transaction; 409 naming `tenant_name` when taken. */
  create(input: NewTenant, actor: string): Promise<TenantRecord>;
  /** Merge under the version lock (no lost update); a new name moves its marker in the same transaction. 404 if missing. */
  update(id: string, patch: TenantPatch, actor: string): Promise<TenantRecord>;
  /**
   * Deletes a tenant that holds nothing (docs/tenants.md "Deleting a tenant"): one transaction deletes
   * the record and its marker, and requires every per-tenant counter to be 0 while marking it
   * `tenant_deleted`, so a create racing the delete either lands first (the delete is 409) or fails
   * on the mark (collections.ts `countWrite`). 409 naming what it still holds; false if there is no such tenant.
   */
  delete(id: string): Promise<boolean>;
  /** What the tenant still holds, by kind (only kinds with a count above 0). */
  holdings(id: string): Promise<Partial<Record<TenantHeldKind, number>>>;
  /** All tenants (GSI1 `TENANTS`, id order) as a list source; `total_count` is the tenants counter. */
  collection(): CollectionSource<TenantRecord>;
}

export const tenantNameMarker = (name: string) => keys.marker('TENANT_NAME', name);

const nameTaken = () => conflict('body.tenant_name: a tenant with this tenant_name already exists.');

const counterKind = (kind: TenantHeldKind) => kind.toUpperCase() as CollectionKind;

export function tenantsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): TenantsAdminRepository {
  const get = async (id: string) => {
    const item = await getItem(db, tableName, keys.tenant(id), now());
    return item ? toRecord<TenantRecord>(item) : undefined;
  };

  const holdings = async (id: string) => {
    const counters = TENANT_HELD_KINDS.map((kind) => ({ kind, key: keys.collectionCounter(id, counterKind(kind)) }));
    const found = await getItems(
      db,
      tableName,
      counters.map((c) => c.key),
      now(),
    );
    const out: Partial<Record<TenantHeldKind, number>> = {};
    for (const { kind, key } of counters) {
      const count = found.get(keyString(key))?.count;
      if (typeof count === 'number' && count > 0) out[kind] = count;
    }
    return out;
  };

  const create = async (record: TenantRecord, onTaken: () => ReturnType<typeof conflict>) => {
    await commitPlan(db, tableName, [
      [
        putItem(tenantItem(record), { condition: notExists, onFail: () => conflict(`A tenant with id ${record.id} already exists.`) }),
        putMarker(tenantNameMarker(record.tenant_name), record.id, { onTaken }),
        tenantsCount(1),
      ],
    ]);
    return record;
  };

  return {
    get,
    holdings,

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
      const record: TenantRecord = {
        id: DEFAULT_TENANT_ID,
        tenant_name: 'default',
        tenant_metadata: [],
        is_default: true,
        version: 1,
        ...newAuditFields(SYSTEM_ACTOR_ID, now().toISOString()),
      };
      try {
        return await create(record, () => conflict('A tenant named "default" already exists.'));
      } catch (err) {
        // A concurrent start created it first: theirs is as good as ours.
        const created = isAppError(err) && err.status === 409 ? await get(DEFAULT_TENANT_ID) : undefined;
        if (!created) throw err;
        return created;
      }
    },

    create(input, actor) {
      return create(
        {
          id: uuidv7(),
          tenant_name: input.tenant_name,
          ...(input.tenant_description !== undefined ? { tenant_description: input.tenant_description } : {}),
          tenant_metadata: input.tenant_metadata ?? [],
          is_default: false,
          version: 1,
          ...newAuditFields(actor, now().toISOString()),
        },
        nameTaken,
      );
    },

    update(id, patch, actor) {
      return updateWithRetry({
        load: () => get(id),
        notFound: () => notFound('Tenant not found.'),
        write: async (current) => {
          const fields: Record<string, unknown> = { updated_by: actor, updated_at: now().toISOString() };
          const writes: Write[] = [];
          if (patch.tenant_name !== undefined && patch.tenant_name !== current.tenant_name) {
            fields.tenant_name = patch.tenant_name;
            writes.push(
              deleteMarker(tenantNameMarker(current.tenant_name), id),
              putMarker(tenantNameMarker(patch.tenant_name), id, { onTaken: nameTaken }),
            );
          }
          // `null` removes the description; versionedUpdate REMOVEs a field set to undefined.
          if (patch.tenant_description !== undefined) fields.tenant_description = patch.tenant_description ?? undefined;
          if (patch.tenant_metadata !== undefined) fields.tenant_metadata = patch.tenant_metadata;
          const { attributes } = await commitPlan(db, tableName, [[versionedUpdate(keys.tenant(id), fields, current.version), ...writes]]);
          if (attributes) return toRecord<TenantRecord>(attributes);
          const after = await get(id);
          if (!after) throw notFound('Tenant not found.');
          return after;
        },
      });
    },

    delete(id) {
      return withRetries(async () => {
        const tenant = await get(id);
        if (!tenant) return false;
        if (tenant.is_default) throw forbiddenDefault();
        const held = await holdings(id);
        if (Object.keys(held).length > 0) throw holdsRecords(held);
        // A lost race (a record created since the read) fails a counter's condition: a
        // RetryableConflict, so the next round reads the counters again and names what it holds.
        await commitPlan(db, tableName, [
          [
            deleteItem(keys.tenant(id), { condition: and(exists, equals('version', tenant.version), equals('is_default', false)) }),
            deleteMarker(tenantNameMarker(tenant.tenant_name), id),
            tenantsCount(-1),
            ...TENANT_HELD_KINDS.map((kind) => closeCounter(id, counterKind(kind))),
          ],
        ]);
        return true;
      });
    },

    collection() {
      const source = querySource<TenantRecord>(db, tableName, {
        indexName: 'GSI1',
        partition: keys.tenantsCollection,
        toRecord: (item) => toRecord<TenantRecord>(item),
        count: async () => {
          const item = await getItem(db, tableName, keys.tenantsCounter, now());
          return typeof item?.count === 'number' ? item.count : 0;
        },
      });
      return { ...source, id: keys.tenantsCollection };
    },
  };
}

function tenantItem(record: TenantRecord) {
  return { ...keys.tenant(record.id), GSI1PK: keys.tenantsCollection, GSI1SK: record.id, ...entity('Tenant'), ...record };
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

/** Zero (or never written): the tenant holds no record of this kind. */
const countIsZero: Condition = (x) => `attribute_not_exists(${x.name('count')}) OR ${x.name('count')} = ${x.value(0)}`;

/** Requires the counter at 0 and marks it, so no later create in this tenant commits (collections.ts `countWrite`). */
const closeCounter = (tenantId: string, kind: CollectionKind): Write => {
  const e = entity('Counter');
  return updateItem(keys.collectionCounter(tenantId, kind), {
    set: [
      ['type', e.type],
      ['schema_version', e.schema_version],
      [TENANT_DELETED, true],
    ],
    condition: countIsZero,
  });
};

const forbiddenDefault = () => forbidden('The default tenant cannot be deleted.');

/** docs/tenants.md: the 409 names every kind the tenant still holds, with its count. */
export const holdsRecords = (held: Partial<Record<TenantHeldKind, number>>) =>
  conflict(
    `The tenant still holds records: ${Object.entries(held)
      .map(([kind, n]) => `${kind} (${n})`)
      .join(', ')}. Delete them first.`,
  );
