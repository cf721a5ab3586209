import { list } from '#shared/http/response-spec.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { listRoles } from '#shared/management/roles/list-roles.ts';
import { roleEntity } from '#shared/management/roles/role-entity.ts';
import { roleListQuery } from '#shared/management/roles/role-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { roleDeps } from '#shared/wiring/roles.ts';

/** GET /identity/v1/roles (docs/contract.md §6). */
export const handler = managementHandler({ query: roleListQuery, responses: { 200: list(roleEntity) } }, async (req) =>
  listResponse(roleEntity, await listRoles(roleDeps(req.runtime), req.access, req.query)),
);
