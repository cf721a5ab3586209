import { tenantAdminsCollection } from '../../lists/collections/tenant-admins.ts';
import type { TenantAdminRecord } from '../../records/tenant-admin-record.ts';
import { defineEntity, pickView } from '../kit/entity.ts';
import { addLinkedData, defineLinkedRecord, distinctIds, loadByIds } from '../kit/linked-data.ts';
import { userEntity } from '../users/user-entity.ts';
import type { TenantAdminDeps } from './tenant-admin-deps.ts';

/** `user_data`: the admin, as GET /users/{id} shows it (one GetItem per distinct user of the page). */
const userData = defineLinkedRecord<TenantAdminDeps>({
  idField: 'user_id',
  as: 'user_data',
  async load(deps, links, access) {
    const found = await loadByIds(distinctIds(links, 'user_id'), (id) => deps.users.get(id));
    return new Map([...found].map(([id, u]) => [id, u ? userEntity.view(u, access) : null]));
  },
});

/** A Tenant admin link (docs/contract.md §7.7: `user_id`, `user_data` with `expand=all`). */
export const tenantAdminEntity = defineEntity<TenantAdminRecord, TenantAdminDeps>({
  noun: 'Tenant admin',
  collection: tenantAdminsCollection,
  view: pickView<TenantAdminRecord>(['id', 'tenant_id', 'user_id', 'created_by', 'created_at', 'updated_by', 'updated_at']),
  expand: (deps, views, access) => addLinkedData(deps, views, [userData], access),
});
