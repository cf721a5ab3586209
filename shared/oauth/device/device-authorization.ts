import * as v from 'valibot';
import { oauthError } from '../../errors.ts';
import { formatUserCode } from '../../records/user-code.ts';
import type { DeviceCodesRepository } from '../../store/sessions/device-codes-repository.ts';
import { presentedCredentials, verifyCredentials } from '../authenticate-client.ts';
import { CLIENT_ASSERTION_PARAMS } from '../client-auth/client-assertion.ts';
import { pickFields } from '../introspection/introspection-request.ts';
import type { OAuthDeps } from '../oauth-deps.ts';
import { parseScope } from '../parse-scope.ts';
import { assertMayCarryUserTokens } from '../user-tokens/management-api-link.ts';
import { audienceResource, requestedAudience } from '../user-tokens/user-token-scopes.ts';

/** Plan decision: a device code lives 10 minutes (RFC 8628 §3.2 `expires_in`). */
export const DEVICE_CODE_LIFETIME_SECONDS = 600;
/** RFC 8628 §3.2 `interval`: its default, 5 seconds. */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;

const optional = v.optional(v.pipe(v.string(), v.maxLength(4096)));

/**
 * `/device_code` parameters (RFC 8628 §3.1, spec 4.2 "Get device code"): client authentication
 * (RFC 6749 §2.3: public clients send `client_id` alone), `scope`, the target Resource
 * (`audience` / RFC 8707 `resource`) and spec 4.1's `fields`. Unknown parameters are ignored.
 */
export const DeviceCodeRequestSchema = v.looseObject({
  client_id: optional,
  client_secret: optional,
  // private_key_jwt (RFC 7523 §2.2): checked by authenticate-client.ts.
  ...CLIENT_ASSERTION_PARAMS,
  scope: optional,
  audience: optional,
  resource: optional,
  fields: v.optional(v.pipe(v.string(), v.maxLength(512))),
});
export type DeviceCodeRequest = v.InferOutput<typeof DeviceCodeRequestSchema>;

/** RFC 8628 §3.2, spec 2.13. */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}
const RESPONSE_FIELDS = ['device_code', 'user_code', 'verification_uri', 'verification_uri_complete', 'expires_in', 'interval'];

/** The OAuth dependencies, with device authorizations that can be created (built in shared/wiring/authorize.ts). */
export type DeviceAuthorizationDeps = Omit<OAuthDeps, 'deviceCodes'> & { deviceCodes: Pick<DeviceCodesRepository, 'create'> };

/**
 * The device authorization endpoint (RFC 8628 §3.1, §3.2): authenticates the client as `/token`
 * does, requires `device_code` in its `grant_types` (docs/contract.md §5.1, else `unauthorized_client`),
 * checks the scope syntax and that the audience names a Resource of the client's tenant, and
 * stores a pending authorization with a device code (256 bits, stored hashed) and a user code
 * people can type (user-code.ts).
 */
export async function authorizeDevice(
  headers: Record<string, string | undefined>,
  request: DeviceCodeRequest,
  deps: DeviceAuthorizationDeps,
): Promise<Record<string, unknown>> {
  const credentials = presentedCredentials(headers, request);
  const audience = requestedAudience(request);
  await deps.preload(credentials.clientId, { audience });
  const { client } = await verifyCredentials(credentials, deps, '/device_code');
  if (!client.grant_types.includes('device_code')) {
    throw oauthError(400, 'unauthorized_client', 'The client may not use device_code.');
  }
  const scopes = parseScope(request.scope);
  const resource = audience === undefined ? undefined : await audienceResource(client.tenant_id, audience, deps);
  // Refused now rather than after the user approved: the grant could never yield its token.
  if (resource) assertMayCarryUserTokens(client, resource);
  const { deviceCode, device } = await deps.deviceCodes.create({
    clientId: client.id,
    tenantId: client.tenant_id,
    scopes,
    audience,
    resourceId: resource?.id,
    lifetimeSeconds: DEVICE_CODE_LIFETIME_SECONDS,
    intervalSeconds: DEVICE_POLL_INTERVAL_SECONDS,
  });
  const userCode = formatUserCode(device.user_code);
  const verificationUri = `${deps.issuer}/device`;
  const response: DeviceAuthorizationResponse = {
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: verificationUri,
    // RFC 8628 §3.3.1: the code in the URI, for a QR code or a link; the page only pre-fills it.
    verification_uri_complete: `${verificationUri}?user_code=${encodeURIComponent(userCode)}`,
    expires_in: DEVICE_CODE_LIFETIME_SECONDS,
    interval: DEVICE_POLL_INTERVAL_SECONDS,
  };
  return pickFields({ ...response }, request.fields, RESPONSE_FIELDS, 'device_code');
}
