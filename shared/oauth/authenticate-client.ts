import { verifyClientSecret } from '../crypto/client-secret.ts';
import { invalidClient, oauthError } from '../errors.ts';
import type { OAuthClient, OAuthDeps } from './oauth-deps.ts';
import { parseBasicCredentials } from './parse-basic-credentials.ts';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/**
 * The client-authenticated endpoints, by path. A client assertion names the one it was made for, or
 * the issuer, in its `aud` (RFC 7523 §3 item 3; docs/client-authentication.md).
 */
export type ClientAuthEndpoint = '/token' | '/introspect' | '/tokeninfo' | '/revoke' | '/device_code' | '/par' | '/users/register';

export interface AuthenticatedClient {
  client: OAuthClient;
  method: ClientAuthMethod;
}

/** A client id we would ever store: bounded and printable, so junk never reaches the table. */
const CLIENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;

/** A client id we could have stored (anything else is refused before any read). */
export const isStorableClientId = (id: string): boolean => CLIENT_ID.test(id);

/** What a request presents to authenticate its client (RFC 6749 §2.3), read but not yet verified. */
export interface PresentedCredentials {
  clientId: string;
  secret: string | undefined;
  method: ClientAuthMethod;
}

/**
 * Reads the client credentials of a request: `client_secret_basic`, `client_secret_post`, or
 * `none` (a `client_id` alone). Exactly one method per request (§2.3: "MUST NOT use more than
 * one"). A client id we could never have stored is refused here, so junk never reaches the table.
 */
export function presentedCredentials(
  headers: Record<string, string | undefined>,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
): PresentedCredentials {
  const basic = parseBasicCredentials(headers.authorization);
  if (basic && body.client_secret !== undefined) {
    throw oauthError(400, 'invalid_request', 'Use one client authentication method, not both Basic and client_secret.');
  }
  if (basic && body.client_id !== undefined && body.client_id !== basic.clientId) {
    throw oauthError(400, 'invalid_request', 'body.client_id: does not match the Basic credentials.');
  }
  const clientId = basic?.clientId ?? body.client_id;
  const secret = basic?.clientSecret ?? body.client_secret;
  const method: ClientAuthMethod = basic ? 'client_secret_basic' : secret !== undefined ? 'client_secret_post' : 'none';
  if (!clientId) throw invalidClient('Client authentication is required.');
  if (!CLIENT_ID.test(clientId)) throw invalidClient();
  return { clientId, secret, method };
}

/** The client id a request claims by Basic or `client_id`, if well-formed; never throws (it only decides what to read). */
export function claimedClientId(
  headers: Record<string, string | undefined>,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
): string | undefined {
  try {
    return presentedCredentials(headers, body).clientId;
  } catch {
    return undefined;
  }
}

/**
 * RFC 6749 §2.3: authenticates the client with `client_secret_basic`, `client_secret_post`, or
 * `none` for public clients. Every failure is the same 401 invalid_client, so the answer does not
 * tell which part was wrong.
 */
export async function authenticateClient(
  headers: Record<string, string | undefined>,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
  deps: Pick<OAuthDeps, 'findClient' | 'now'>,
  endpoint: ClientAuthEndpoint,
): Promise<AuthenticatedClient> {
  return verifyCredentials(presentedCredentials(headers, body), deps, endpoint);
}

/** Checks presented credentials against the stored client (the second half of authenticateClient). */
export async function verifyCredentials(
  { clientId, secret, method }: PresentedCredentials,
  deps: Pick<OAuthDeps, 'findClient' | 'now'>,
  _endpoint: ClientAuthEndpoint,
): Promise<AuthenticatedClient> {
  const client = await deps.findClient(clientId);
  if (!client) {
    verifyClientSecret(secret ?? '', undefined); // same work as a wrong secret
    throw invalidClient();
  }
  if (client.is_public) {
    // Public clients have no secret (RFC 6749 §2.1); presenting one is a misconfigured client.
    if (secret !== undefined) throw invalidClient();
    return { client, method: 'none' };
  }
  if (secret === undefined || !verifyClientSecret(secret, client.secret_hash)) throw invalidClient();
  if (client.client_secret_expires_at && Date.parse(client.client_secret_expires_at) <= deps.now().getTime()) {
    throw invalidClient('The client secret has expired.');
  }
  return { client, method };
}
