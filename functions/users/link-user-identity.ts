import { record } from '#shared/http/response-spec.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import {
  LinkIdentityBody,
  linkUserIdentity,
  userIdentityEntity,
  userIdentityRecordQuery,
} from '#shared/management/users/user-identities.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userIdentityDeps } from '#shared/wiring/user-identities.ts';

/** POST /identity/v1/users/{user_id}/identities: 201 with the identity (docs/contract.md §7.7). */
export const handler = managementHandler(
  { path: UserPath, body: LinkIdentityBody, query: userIdentityRecordQuery, responses: { 201: record(userIdentityEntity) } },
  async (req) =>
    recordResponse(
      userIdentityEntity,
      201,
      await linkUserIdentity(userIdentityDeps(req.runtime), req.access, req.path.user_id, req.body, req.query),
    ),
);
