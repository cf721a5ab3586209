import { record } from '#shared/http/response-spec.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { createRole } from '#shared/management/roles/create-role.ts';
import { CreateRoleBody } from '#shared/management/roles/role-body-schemas.ts';
import { roleEntity } from '#shared/management/roles/role-entity.ts';
import { roleRecordQuery } from '#shared/management/roles/role-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { roleDeps } from '#shared/wiring/roles.ts';

/** POST /identity/v1/roles (docs/contract.md §6): 201 with the Role. */
export const handler = managementHandler(
  { body: CreateRoleBody, query: roleRecordQuery, responses: { 201: record(roleEntity) } },
  async (req) => recordResponse(roleEntity, 201, await createRole(roleDeps(req.runtime), req.access, req.body, req.query)),
);
