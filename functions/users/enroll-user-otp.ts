import * as v from 'valibot';
import { jsonResponse, NO_STORE } from '../../shared/http/response.ts';
import { json } from '../../shared/http/response-spec.ts';
import { managementHandler } from '../../shared/management/management-handler.ts';
import { enrollUserOtp } from '../../shared/management/users/enroll-user-otp.ts';
import { UserPath } from '../../shared/management/users/user-body-schemas.ts';
import { userDeps } from '../../shared/management/users/user-deps.ts';

/** POST /identity/v1/users/{user_id}/otp: 201 `{secret, otpauth_uri}`, no-store (API.md §7.5, §2). */
export const handler = managementHandler(
  { path: UserPath, responses: { 201: json(v.strictObject({ secret: v.string(), otpauth_uri: v.string() })) } },
  async (req) => jsonResponse(201, await enrollUserOtp(userDeps(req.runtime), req.access, req.path.user_id), NO_STORE),
);
