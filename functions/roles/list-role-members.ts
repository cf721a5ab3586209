import { list } from '#shared/http/response-spec.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { listRoleMembers } from '#shared/management/roles/list-role-members.ts';
import { RolePath } from '#shared/management/roles/role-body-schemas.ts';
import { roleMemberEntity } from '#shared/management/roles/role-entity.ts';
import { roleMemberListQuery } from '#shared/management/roles/role-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { roleDeps } from '#shared/wiring/roles.ts';

/** GET /identity/v1/roles/{role_id}/members (docs/contract.md §6). */
export const handler = managementHandler(
  { path: RolePath, query: roleMemberListQuery, responses: { 200: list(roleMemberEntity) } },
  async (req) => listResponse(roleMemberEntity, await listRoleMembers(roleDeps(req.runtime), req.access, req.path.role_id, req.query)),
);
