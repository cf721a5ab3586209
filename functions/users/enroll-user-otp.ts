import * as v from 'valibot';
import { jsonResponse, NO_STORE } from '#shared/http/response.ts';
import { json } from '#shared/http/response-spec.ts';
import { enrollUserOtp } from '#shared/management/users/enroll-user-otp.ts';
import { OtpBody, UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userDeps } from '#shared/wiring/users.ts';

/** POST /identity/v1/users/{user_id}/otp `{password}`: 201 `{secret, otpauth_uri}`, no-store, for the user itself (docs/management-users.md). */
export const handler = managementHandler(
  { path: UserPath, body: OtpBody, responses: { 201: json(v.strictObject({ secret: v.string(), otpauth_uri: v.string() })) } },
  async (req) => jsonResponse(201, await enrollUserOtp(userDeps(req.runtime), req.access, req.path.user_id, req.body), NO_STORE),
);
