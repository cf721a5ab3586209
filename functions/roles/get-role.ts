import { record } from '#shared/http/response-spec.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { getRole } from '#shared/management/roles/get-role.ts';
import { RolePath } from '#shared/management/roles/role-body-schemas.ts';
import { roleEntity } from '#shared/management/roles/role-entity.ts';
import { roleRecordQuery } from '#shared/management/roles/role-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { roleDeps } from '#shared/wiring/roles.ts';

/** GET /identity/v1/roles/{role_id} (docs/contract.md §6). */
export const handler = managementHandler({ path: RolePath, query: roleRecordQuery, responses: { 200: record(roleEntity) } }, async (req) =>
  recordResponse(roleEntity, 200, await getRole(roleDeps(req.runtime), req.access, req.path.role_id, req.query)),
);
