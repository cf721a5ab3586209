import { list } from '#shared/http/response-spec.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { listRolePermissions } from '#shared/management/roles/list-role-permissions.ts';
import { RolePath } from '#shared/management/roles/role-body-schemas.ts';
import { rolePermissionEntity } from '#shared/management/roles/role-entity.ts';
import { rolePermissionListQuery } from '#shared/management/roles/role-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { roleDeps } from '#shared/wiring/roles.ts';

/** GET /identity/v1/roles/{role_id}/permissions (docs/contract.md §6). */
export const handler = managementHandler(
  { path: RolePath, query: rolePermissionListQuery, responses: { 200: list(rolePermissionEntity) } },
  async (req) =>
    listResponse(rolePermissionEntity, await listRolePermissions(roleDeps(req.runtime), req.access, req.path.role_id, req.query)),
);
