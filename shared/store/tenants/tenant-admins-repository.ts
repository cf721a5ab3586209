import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../../errors.ts';
import { newAuditFields } from '../../records/common.ts';
import type { TenantAdminRecord } from '../../records/tenant-admin-record.ts';
import type { UserRecord } from '../../records/user-record.ts';
import { entity, toRecord } from '../core/entity.ts';
import { and, equals, exists, notExists } from '../core/expression.ts';
import { queryPrefix } from '../core/reads/query-all.ts';
import { getItems } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { deleteItem, type Key, keyString, putItem, updateItem, type Write } from '../core/writes.ts';
import { commitLinkChange, LinkPlan } from '../rbac/link-commit.ts';

/**
 * A tenant's admins (docs/tenants.md "Tenant admins"): one link item per (tenant, user) in the tenant's
 * partition, and the user item's `tenant_admin` mirror set or removed in the SAME transaction, so
 * `/token` and the management API decide from the user item they already read (no extra call).
 * Changes are all-or-nothing over the body through `commitLinkChange` (docs/contract.md §6): a user
 * unknown or of another tenant 404, one already an admin 409 when adding, one not an admin 404
 * when removing; a retry after a lost race treats what this call already committed as done.
 */
export interface TenantAdminsRepository {
  /** Users of `tenantId` only. */
  add(tenantId: string, userIds: readonly string[], actor: string): Promise<void>;
  remove(tenantId: string, userIds: readonly string[]): Promise<void>;
  /** The tenant's admin links in user id order: one consistent Query of its partition. */
  list(tenantId: string): Promise<TenantAdminRecord[]>;
}

export function tenantAdminItem(a: TenantAdminRecord) {
  return {
    ...keys.tenantAdmin(a.tenant_id, a.user_id),
    GSI2PK: keys.userAdminOf(a.user_id),
    GSI2SK: a.tenant_id,
    ...entity('TenantAdmin'),
    ...a,
  };
}

/**
 * The user item's part: the mirror, on condition the user still exists in that tenant (a user
 * deleted meanwhile fails the add; user-delete.ts removes the link with the user).
 */
const adminMirror = (tenantId: string, userId: string, added: boolean): Write =>
  updateItem(keys.user(userId), {
    ...(added ? { set: [['tenant_admin', true]] as const } : { remove: ['tenant_admin'] }),
    condition: and(exists, equals('tenant_id', tenantId)),
  });

export function tenantAdminsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): TenantAdminsRepository {
  const read = async (ks: readonly Key[]) => {
    const found = await getItems(db, tableName, ks, now());
    return (k: Key) => found.get(keyString(k));
  };

  return {
    add: (tenantId, userIds, actor) =>
      commitLinkChange(db, tableName, async (done) => {
        const ids = [...new Set(userIds)];
        const user = await read(ids.map(keys.user));
        const link = await read(ids.map((u) => keys.tenantAdmin(tenantId, u)));
        const plan = new LinkPlan();
        const at = now().toISOString();
        for (const id of ids) {
          const u = user(keys.user(id));
          // docs/contract.md §4: another tenant's user is answered as an unknown one; messages name the field, never an id (§8).
          if (!u || toRecord<UserRecord>(u).tenant_id !== tenantId) throw notFound('body.users: a user was not found.');
          if (link(keys.tenantAdmin(tenantId, id))) {
            if (done.has(id)) continue;
            throw conflict('body.users: a user is already an admin of this tenant.');
          }
          const record: TenantAdminRecord = { id: uuidv7(), tenant_id: tenantId, user_id: id, ...newAuditFields(actor, at) };
          plan.add([[putItem(tenantAdminItem(record), { condition: notExists }), adminMirror(tenantId, id, true)]], id);
        }
        return plan;
      }),

    remove: (tenantId, userIds) =>
      commitLinkChange(db, tableName, async (done) => {
        const ids = [...new Set(userIds)];
        const link = await read(ids.map((u) => keys.tenantAdmin(tenantId, u)));
        const user = await read(ids.map(keys.user));
        const plan = new LinkPlan();
        for (const id of ids) {
          if (!link(keys.tenantAdmin(tenantId, id))) {
            if (done.has(id)) continue;
            throw notFound('body.users: a user is not an admin of this tenant.');
          }
          const writes: Write[] = [deleteItem(keys.tenantAdmin(tenantId, id), { condition: exists })];
          if (user(keys.user(id))) writes.push(adminMirror(tenantId, id, false));
          plan.add([writes], id);
        }
        return plan;
      }),

    async list(tenantId) {
      const items = await queryPrefix(db, tableName, keys.tenant(tenantId).PK, keys.tenantAdminPrefix);
      return items.map((i) => toRecord<TenantAdminRecord>(i));
    },
  };
}
