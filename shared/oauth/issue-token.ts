import * as v from 'valibot';
import { oauthError } from '../errors.ts';
import { presentedCredentials, verifyCredentials } from './authenticate-client.ts';
import { grantClientCredentials } from './grant-client-credentials.ts';
import type { OAuthDeps } from './oauth-deps.ts';
import type { TokenResponse } from './token-response.ts';

const optional = v.optional(v.pipe(v.string(), v.maxLength(4096)));

/**
 * POST /token parameters (spec 4.2). RFC 6749 §3.2: unknown parameters are ignored, so the object
 * is loose; a parameter sent as something other than one string is a 400 naming it.
 */
export const TokenRequestSchema = v.looseObject({
  grant_type: v.pipe(v.string('grant_type is required'), v.minLength(1, 'grant_type is required')),
  client_id: optional,
  client_secret: optional,
  scope: optional,
  audience: optional,
  resource: optional,
});
export type TokenRequest = v.InferOutput<typeof TokenRequestSchema>;

/** Every spelling of a grant the spec or API.md §5.1 accepts, to its canonical name. */
const GRANT_NAMES: Record<string, string> = {
  client_credentials: 'client_credentials',
  password: 'password',
  refresh_token: 'refresh_token',
  authorization_code: 'authorization_code',
  code: 'authorization_code',
  authorization_code_verifier: 'authorization_code',
  device_code: 'device_code',
  'urn:ietf:params:oauth:grant-type:device_code': 'device_code',
  otp: 'otp',
  token_exchange: 'token_exchange',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'token_exchange',
};

/**
 * The token endpoint as a pipeline of named rules (node-oidc-provider's actions/token.js):
 * authenticate the client → known grant → grant allowed for the client → run the grant.
 */
export async function issueToken(
  headers: Record<string, string | undefined>,
  body: TokenRequest,
  deps: OAuthDeps,
): Promise<TokenResponse> {
  const credentials = presentedCredentials(headers, body);
  // One DynamoDB read for everything below when this container is cold (issue 3 item 7).
  await deps.preload(credentials.clientId, body.audience ?? body.resource);
  const authenticated = await verifyCredentials(credentials, deps);
  const grant = GRANT_NAMES[body.grant_type];
  // RFC 6749 §4.2: implicit only ever goes through /authorize.
  if (!grant) throw oauthError(400, 'unsupported_grant_type', `body.grant_type: "${body.grant_type}" is not supported.`);
  if (!authenticated.client.grant_types.includes(grant)) {
    throw oauthError(400, 'unauthorized_client', `body.grant_type: the client may not use ${grant}.`);
  }
  switch (grant) {
    case 'client_credentials':
      return grantClientCredentials(authenticated, body, deps);
    default:
      throw oauthError(400, 'unsupported_grant_type', `body.grant_type: ${grant} is not available yet.`);
  }
}
