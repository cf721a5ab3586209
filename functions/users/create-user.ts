import { record } from '#shared/http/response-spec.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { createUser } from '#shared/management/users/create-user.ts';
import { CreateUserBody } from '#shared/management/users/user-body-schemas.ts';
import { userEntity } from '#shared/management/users/user-entity.ts';
import { userRecordQuery } from '#shared/management/users/user-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userDeps } from '#shared/wiring/users.ts';

/** POST /identity/v1/users (docs/contract.md §7.5): 201 with the User (never its password). */
export const handler = managementHandler(
  { body: CreateUserBody, query: userRecordQuery, responses: { 201: record(userEntity) } },
  async (req) => recordResponse(userEntity, 201, await createUser(userDeps(req.runtime), req.access, req.body, req.query)),
);
