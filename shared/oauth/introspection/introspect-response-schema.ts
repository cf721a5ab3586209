import * as v from 'valibot';
import { jsonSeconds, jsonString } from '../../http/response-members.ts';

/** RFC 7662 §2.2 (`/introspect`): NumericDates and registered claim names. */
export const IntrospectResponseSchema = v.object({
  active: v.boolean(),
  scope: v.optional(jsonString),
  client_id: v.optional(jsonString),
  username: v.optional(jsonString),
  token_type: v.optional(jsonString),
  exp: v.optional(jsonSeconds),
  iat: v.optional(jsonSeconds),
  nbf: v.optional(jsonSeconds),
  sub: v.optional(jsonString),
  aud: v.optional(v.union([jsonString, v.array(jsonString)])),
  iss: v.optional(jsonString),
  jti: v.optional(jsonString),
  tenant_id: v.optional(jsonString),
  // RFC 9449 §6.2 / RFC 7800 §3.1: the DPoP key a bound token is confirmed by.
  cnf: v.optional(v.object({ jkt: jsonString })),
});
