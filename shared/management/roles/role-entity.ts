import { roleMembersCollection, rolePermissionsCollection, rolesCollection, userRolesCollection } from '../../lists/index.ts';
import type { RoleMember, RolePermission, RoleRecord } from '../../records/role-record.ts';
import { resourceData, scopeData } from '../clients/client-entity.ts';
import { defineEntity, pickView } from '../kit/entity.ts';
import { addLinkedData, defineLinkedRecord, distinctIds, loadByIds } from '../kit/linked-data.ts';
import { userEntity } from '../users/user-entity.ts';
import type { RoleDeps } from './role-deps.ts';

const AUDIT = ['created_by', 'created_at', 'updated_by', 'updated_at'] as const;

/**
 * A Role (docs/contract.md §6) as callers see it. Storage-only fields (`token_grants`, its version,
 * `links_version`, `version`) are simply not listed, so a field added later stays hidden.
 */
export const roleEntity = defineEntity<RoleRecord, RoleDeps>({
  noun: 'Role',
  collection: rolesCollection,
  view: pickView<RoleRecord>(['id', 'tenant_id', 'role_name', 'role_description', 'aggregations', ...AUDIT]),
});

/** `user_data`: the member, as GET /users/{id} shows it (one GetItem per distinct user of the page). */
const userData = defineLinkedRecord<RoleDeps>({
  idField: 'user_id',
  as: 'user_data',
  async load(deps, links, access) {
    const found = await loadByIds(distinctIds(links, 'user_id'), (id) => deps.users.get(id));
    return new Map([...found].map(([id, u]) => [id, u ? userEntity.view(u, access) : null]));
  },
});

/** `role_data`: the role, as GET /roles/{id} shows it. */
const roleData = defineLinkedRecord<RoleDeps>({
  idField: 'role_id',
  as: 'role_data',
  async load(deps, links, access) {
    const found = await loadByIds(distinctIds(links, 'role_id'), (id) => deps.roles.get(id));
    return new Map([...found].map(([id, r]) => [id, r ? roleEntity.view(r, access) : null]));
  },
});

/** A role permission (docs/contract.md §6 link records); `resource_data` and `scope_data` under `expand=all`. */
export const rolePermissionEntity = defineEntity<RolePermission, RoleDeps>({
  noun: 'Permission',
  collection: rolePermissionsCollection,
  view: pickView<RolePermission>(['id', 'tenant_id', 'role_id', 'resource_id', 'scope_id', ...AUDIT]),
  expand: (deps, views, access) => addLinkedData(deps, views, [resourceData, scopeData], access),
});

const memberView = pickView<RoleMember>(['id', 'tenant_id', 'role_id', 'user_id', ...AUDIT]);

/** A member link seen from the role; `user_data` under `expand=all`. */
export const roleMemberEntity = defineEntity<RoleMember, RoleDeps>({
  noun: 'Member',
  collection: roleMembersCollection,
  view: memberView,
  expand: (deps, views, access) => addLinkedData(deps, views, [userData], access),
});

/** The same link seen from the user; `role_data` under `expand=all`. */
export const userRoleEntity = defineEntity<RoleMember, RoleDeps>({
  noun: 'Role link',
  collection: userRolesCollection,
  view: memberView,
  expand: (deps, views, access) => addLinkedData(deps, views, [roleData], access),
});
