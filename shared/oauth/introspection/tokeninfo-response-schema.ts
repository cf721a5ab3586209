import * as v from 'valibot';
import { jsonString } from '../../http/response-members.ts';

/** Spec 2.11 (`/tokeninfo`): ISO timestamps and `subject`; an inactive token is `{active: false}` only. */
export const TokeninfoResponseSchema = v.object({
  active: v.boolean(),
  token_type: v.optional(jsonString),
  client_id: v.optional(jsonString),
  scope: v.optional(jsonString),
  username: v.optional(jsonString),
  exp: v.optional(v.pipe(jsonString, v.isoTimestamp())),
  iat: v.optional(v.pipe(jsonString, v.isoTimestamp())),
  nbf: v.optional(v.pipe(jsonString, v.isoTimestamp())),
  subject: v.optional(jsonString),
  jti: v.optional(jsonString),
  // RFC 9449 §6.2 / RFC 7800 §3.1: the DPoP key a bound token is confirmed by.
  cnf: v.optional(v.object({ jkt: jsonString })),
});
