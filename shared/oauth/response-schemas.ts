import * as v from 'valibot';

/**
 * The JSON answers of the OAuth 2.0 / OIDC endpoints and health, as valibot schemas for the
 * OpenAPI document (handlers' `responses`, shared/http/response-spec.ts). Objects stay open
 * (`v.object`): a provider may add members (RFC 8414 §3.2, RFC 7662 §2.2, OIDC Core §5.3).
 */

const str = v.string();
const seconds = v.pipe(v.number(), v.integer());

/** RFC 6749 §5.1, OIDC Core §3.1.3.3, RFC 8693 §2.2.1 (`issued_token_type`). */
export const TokenResponseSchema = v.object({
  access_token: str,
  token_type: v.literal('Bearer'),
  expires_in: seconds,
  scope: v.optional(str),
  refresh_token: v.optional(str),
  id_token: v.optional(str),
  issued_token_type: v.optional(str),
});

/**
 * RFC 8628 §3.2 device authorization response (spec 2.13). `fields` (spec 4.2) may leave out any
 * member but `device_code` (device-authorization.ts), so only it is required here; without `fields`
 * every member is there.
 */
export const DeviceAuthorizationResponseSchema = v.object({
  device_code: str,
  user_code: v.optional(str),
  verification_uri: v.optional(str),
  verification_uri_complete: v.optional(str),
  expires_in: v.optional(seconds),
  interval: v.optional(seconds),
});

/** Spec 2.11 (`/tokeninfo`): ISO timestamps and `subject`; an inactive token is `{active: false}` only. */
export const TokeninfoResponseSchema = v.object({
  active: v.boolean(),
  token_type: v.optional(str),
  client_id: v.optional(str),
  scope: v.optional(str),
  username: v.optional(str),
  exp: v.optional(v.pipe(str, v.isoTimestamp())),
  iat: v.optional(v.pipe(str, v.isoTimestamp())),
  nbf: v.optional(v.pipe(str, v.isoTimestamp())),
  subject: v.optional(str),
  jti: v.optional(str),
});

/** RFC 7662 §2.2 (`/introspect`): NumericDates and registered claim names. */
export const IntrospectResponseSchema = v.object({
  active: v.boolean(),
  scope: v.optional(str),
  client_id: v.optional(str),
  username: v.optional(str),
  token_type: v.optional(str),
  exp: v.optional(seconds),
  iat: v.optional(seconds),
  nbf: v.optional(seconds),
  sub: v.optional(str),
  aud: v.optional(v.union([str, v.array(str)])),
  iss: v.optional(str),
  jti: v.optional(str),
  tenant_id: v.optional(str),
});

/** OIDC Core §5.3.2: `sub` always, the other claims by granted scope (API.md §7.1). */
export const UserinfoResponseSchema = v.object({ sub: str });

/** RFC 8414 §3.2 / OIDC Discovery §4.2; the members every answer carries. */
export const DiscoveryResponseSchema = v.object({
  issuer: str,
  token_endpoint: str,
  jwks_uri: str,
  response_types_supported: v.array(str),
  grant_types_supported: v.array(str),
  subject_types_supported: v.array(str),
  id_token_signing_alg_values_supported: v.array(str),
});

/** RFC 7517 §5: public members only. */
export const JwksResponseSchema = v.object({
  keys: v.array(v.object({ kty: str, kid: str, alg: v.optional(str), use: v.optional(str) })),
});

/** Spec 4.4. */
export const HealthResponseSchema = v.object({
  server_name: str,
  server_version: str,
  server_status: v.picklist(['ok', 'degraded']),
  server_description: str,
  failed_dependencies: v.optional(str),
});
