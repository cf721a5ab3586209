import * as v from 'valibot';
import { jsonSeconds, jsonString } from '../http/response-members.ts';

/** RFC 6749 §5.1, RFC 9449 §5, OIDC Core §3.1.3.3, RFC 8693 §2.2.1 (`issued_token_type`). */
export const TokenResponseSchema = v.object({
  access_token: jsonString,
  // RFC 9449 §5: DPoP when the access token is bound to the proof's key.
  token_type: v.picklist(['Bearer', 'DPoP']),
  expires_in: jsonSeconds,
  scope: v.optional(jsonString),
  refresh_token: v.optional(jsonString),
  id_token: v.optional(jsonString),
  issued_token_type: v.optional(jsonString),
});
