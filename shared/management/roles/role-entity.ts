import { rolesCollection } from '../../lists/index.ts';
import type { RoleRecord } from '../../records/role-record.ts';
import { defineEntity, pickView } from '../kit/entity.ts';
import type { RoleDeps } from './role-deps.ts';

/**
 * A Role (API.md §6) as callers see it. Storage-only fields (`token_grants`, its version,
 * `links_version`, `version`) are simply not listed, so a field added later stays hidden.
 */
export const roleEntity = defineEntity<RoleRecord, RoleDeps>({
  noun: 'Role',
  collection: rolesCollection,
  view: pickView<RoleRecord>([
    'id',
    'tenant_id',
    'role_name',
    'role_description',
    'aggregations',
    'created_by',
    'created_at',
    'updated_by',
    'updated_at',
  ]),
});
