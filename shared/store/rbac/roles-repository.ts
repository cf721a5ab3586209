import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../../errors.ts';
import type { CollectionSource } from '../../lists/collection-source.ts';
import { newAuditFields } from '../../records/common.ts';
import type { NewRole, RolePatch, RoleRecord } from '../../records/role-record.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { entity, toRecord } from '../core/entity.ts';
import { and, equals, exists, notExists } from '../core/expression.ts';
import { deleteMarker, putMarker } from '../core/markers.ts';
import { type CollectionPage, type CollectionPageRequest, countWrite, tenantCollectionMethods } from '../core/reads/collections.ts';
import { getItem } from '../core/reads/read-items.ts';
import { withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { updateWithRetry, versionedUpdate } from '../core/versioned-update.ts';
import { deleteItem, putItem, type Write } from '../core/writes.ts';
import { sweepRoleGroupLinks, sweepRoleLinks } from './role-delete.ts';

/**
 * Roles (docs/contract.md §6; docs/management-roles.md). `ROLE#{id}` / `ROLE` in GSI1 `TENANT#{t}#ROLES`;
 * `role_name` unique per tenant through its `ROLE_NAME` marker, put, moved and deleted in the same
 * transaction as the record; the tenant's `COUNT#ROLES` moves with create and delete. Links
 * (members, permissions): role-links-repository.ts.
 */
export interface RolesRepository {
  /** The role with its marker in one transaction; 409 naming `role_name` when taken. */
  create(input: NewRole, actor: string): Promise<RoleRecord>;
  /** Consistent GetItem by id. */
  get(id: string): Promise<RoleRecord | undefined>;
  /** Merge under the version lock; the marker moves in the same transaction. 404 if missing. */
  update(id: string, patch: RolePatch, actor: string): Promise<RoleRecord>;
  /**
   * Deletes the role and its marker in one transaction (from then on it grants nothing), then its
   * member, permission and group-role links in bounded pages (role-delete.ts). `accept` is checked on the record read (false →
   * nothing happens). Returns whether a role was deleted; an id with no role still sweeps
   * leftover links, so re-running an interrupted delete finishes it.
   */
  delete(id: string, accept?: (role: RoleRecord) => boolean): Promise<boolean>;
  collection(tenantId: string): CollectionSource<RoleRecord>;
  listPage(tenantId: string, request: CollectionPageRequest): Promise<CollectionPage<RoleRecord>>;
  listAll(tenantId: string): Promise<RoleRecord[]>;
  count(tenantId: string): Promise<number>;
}

export const roleNameMarker = (tenantId: string, roleName: string) => keys.marker('ROLE_NAME', tenantId, roleName);

const nameTaken = () => conflict('body.role_name: a role with this role_name already exists.');

export function rolesRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): RolesRepository {
  const get = async (id: string) => {
    const item = await getItem(db, tableName, keys.role(id), now());
    return item ? toRecord<RoleRecord>(item) : undefined;
  };

  return {
    get,

    async create(input, actor) {
      const at = now().toISOString();
      const record: RoleRecord = {
        id: input.id ?? uuidv7(),
        tenant_id: input.tenant_id,
        role_name: input.role_name,
        ...(input.role_description !== undefined ? { role_description: input.role_description } : {}),
        aggregations: { permissions: 0, members: 0 },
        token_grants: {},
        token_grants_version: 0,
        links_version: 0,
        version: 1,
        ...newAuditFields(actor, at),
      };
      await commitPlan(db, tableName, [
        [
          putItem(roleItem(record), { condition: notExists, onFail: () => conflict(`A role with id ${record.id} already exists.`) }),
          putMarker(roleNameMarker(record.tenant_id, record.role_name), record.id, { onTaken: nameTaken }),
          countWrite(record.tenant_id, 'ROLES', 1),
        ],
      ]);
      return record;
    },

    update(id, patch, actor) {
      return updateWithRetry({
        load: () => get(id),
        notFound: () => notFound('Role not found.'),
        write: async (current) => {
          const fields: Record<string, unknown> = { updated_by: actor, updated_at: now().toISOString() };
          const writes: Write[] = [];
          if (patch.role_name !== undefined && patch.role_name !== current.role_name) {
            fields.role_name = patch.role_name;
            writes.push(
              deleteMarker(roleNameMarker(current.tenant_id, current.role_name), id),
              putMarker(roleNameMarker(current.tenant_id, patch.role_name), id, { onTaken: nameTaken }),
            );
          }
          // `null` removes the description; versionedUpdate REMOVEs a field set to undefined.
          if (patch.role_description !== undefined) fields.role_description = patch.role_description ?? undefined;
          const { attributes } = await commitPlan(db, tableName, [[versionedUpdate(keys.role(id), fields, current.version), ...writes]]);
          if (attributes) return toRecord<RoleRecord>(attributes);
          const after = await get(id);
          if (!after) throw notFound('Role not found.');
          return after;
        },
      });
    },

    async delete(id, accept = () => true) {
      const deleted = await withRetries(async () => {
        const role = await get(id);
        if (!role) return false;
        if (!accept(role)) return undefined;
        await commitPlan(db, tableName, [
          [
            deleteItem(keys.role(id), { condition: and(exists, equals('version', role.version)) }),
            deleteMarker(roleNameMarker(role.tenant_id, role.role_name), id),
            countWrite(role.tenant_id, 'ROLES', -1),
          ],
        ]);
        return true;
      });
      // Another tenant's role: not ours to touch, not even its links.
      if (deleted === undefined) return false;
      await sweepRoleLinks(db, tableName, id, now);
      await sweepRoleGroupLinks(db, tableName, id);
      return deleted;
    },

    ...tenantCollectionMethods<RoleRecord>(db, tableName, 'ROLES', now),
  };
}

export function roleItem(record: RoleRecord) {
  return {
    ...keys.role(record.id),
    GSI1PK: keys.collection(record.tenant_id, 'ROLES'),
    GSI1SK: record.id,
    ...entity('Role'),
    ...record,
  };
}
