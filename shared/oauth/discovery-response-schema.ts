import * as v from 'valibot';
import { jsonString } from '../http/response-members.ts';

/** RFC 8414 §3.2 / OIDC Discovery §4.2; the members every answer carries. */
export const DiscoveryResponseSchema = v.object({
  issuer: jsonString,
  token_endpoint: jsonString,
  jwks_uri: jsonString,
  response_types_supported: v.array(jsonString),
  grant_types_supported: v.array(jsonString),
  subject_types_supported: v.array(jsonString),
  id_token_signing_alg_values_supported: v.array(jsonString),
});
