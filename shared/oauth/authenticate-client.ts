import { verifyClientSecret } from '../crypto/client-secret.ts';
import { invalidClient, oauthError } from '../errors.ts';
import type { TokenEndpointAuthMethod } from '../records/client-record.ts';
import { type AssertionFields, assertionRefused, type ClientAuthEndpoint, presentedAssertion } from './client-auth/client-assertion.ts';
import type { OAuthClient, OAuthDeps } from './oauth-deps.ts';
import { parseBasicCredentials } from './parse-basic-credentials.ts';

export type { ClientAuthEndpoint } from './client-auth/client-assertion.ts';
export type ClientAuthMethod = TokenEndpointAuthMethod;

export interface AuthenticatedClient {
  client: OAuthClient;
  method: ClientAuthMethod;
}

/** What authenticating a client reads: the client (preloaded on the token path), and the assertion check when one is sent. */
export type ClientAuthDeps = Pick<OAuthDeps, 'findClient' | 'now' | 'clientAssertions'>;

/** The members of a request body that carry client credentials (RFC 6749 §2.3.1, RFC 7521 §4.2). */
export interface CredentialFields extends AssertionFields {
  client_id?: string | undefined;
  client_secret?: string | undefined;
}

/** A client id we would ever store: bounded and printable, so junk never reaches the table. */
const CLIENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;

/** A client id we could have stored (anything else is refused before any read). */
export const isStorableClientId = (id: string): boolean => CLIENT_ID.test(id);

/** What a request presents to authenticate its client (RFC 6749 §2.3), read but not yet verified. */
export interface PresentedCredentials {
  clientId: string;
  secret: string | undefined;
  /** `private_key_jwt`: the client assertion, checked once the client is read. */
  assertion?: string;
  method: ClientAuthMethod;
}

/**
 * Reads the client credentials of a request: `client_secret_basic`, `client_secret_post`,
 * `private_key_jwt` (a client assertion, RFC 7523 §2.2) or `none` (a `client_id` alone). Exactly
 * one method per request (RFC 6749 §2.3: "MUST NOT use more than one"): an assertion with Basic
 * or `client_secret` is 400 invalid_request. A `client_id` sent with an assertion must name the
 * client of its `sub` (RFC 7523 §3 item 2; else 401, as any other wrong credential). A client id
 * we could never have stored is refused here, so junk never reaches the table.
 */
export function presentedCredentials(headers: Record<string, string | undefined>, body: CredentialFields): PresentedCredentials {
  const basic = parseBasicCredentials(headers.authorization);
  if (basic && body.client_secret !== undefined) {
    throw oauthError(400, 'invalid_request', 'Use one client authentication method, not both Basic and client_secret.');
  }
  const assertion = presentedAssertion(body);
  if (assertion) {
    if (basic || body.client_secret !== undefined) {
      throw oauthError(400, 'invalid_request', 'Use one client authentication method, not both a client assertion and a secret.');
    }
    if ((body.client_id !== undefined && body.client_id !== assertion.clientId) || !CLIENT_ID.test(assertion.clientId)) {
      throw assertionRefused();
    }
    return { clientId: assertion.clientId, secret: undefined, assertion: assertion.assertion, method: 'private_key_jwt' };
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

/** The client id a request claims by Basic, `client_id` or an assertion's `sub`, if well-formed; never throws (it only decides what to read). */
export function claimedClientId(headers: Record<string, string | undefined>, body: CredentialFields): string | undefined {
  try {
    return presentedCredentials(headers, body).clientId;
  } catch {
    return undefined;
  }
}

/**
 * RFC 6749 §2.3: authenticates the client with the method it presents, which must be one the
 * client may use (`acceptedMethods`). Every failure is the same 401 invalid_client, so the
 * answer does not tell which part was wrong.
 */
export async function authenticateClient(
  headers: Record<string, string | undefined>,
  body: CredentialFields,
  deps: ClientAuthDeps,
  endpoint: ClientAuthEndpoint,
): Promise<AuthenticatedClient> {
  return verifyCredentials(presentedCredentials(headers, body), deps, endpoint);
}

/**
 * The methods a client authenticates with (RFC 7591 §2 `token_endpoint_auth_method`; the same at
 * every client-authenticated endpoint, docs/client-authentication.md "Client authentication
 * methods"): the registered one alone; unset, either secret method for a confidential client and
 * `none` for a public one. A confidential client at `private_key_jwt` keeps its secret stored,
 * unused: no endpoint accepts it while the method is set.
 */
export function acceptedMethods(client: Pick<OAuthClient, 'is_public' | 'token_endpoint_auth_method'>): readonly ClientAuthMethod[] {
  if (client.is_public) return ['none'];
  return client.token_endpoint_auth_method ? [client.token_endpoint_auth_method] : ['client_secret_basic', 'client_secret_post'];
}

/** Checks presented credentials against the stored client (the second half of authenticateClient). */
export async function verifyCredentials(
  { clientId, secret, assertion, method }: PresentedCredentials,
  deps: ClientAuthDeps,
  endpoint: ClientAuthEndpoint,
): Promise<AuthenticatedClient> {
  const client = await deps.findClient(clientId);
  if (!client || !acceptedMethods(client).includes(method)) {
    if (method === 'private_key_jwt') throw assertionRefused();
    verifyClientSecret(secret ?? '', undefined); // same work as a wrong secret
    throw invalidClient();
  }
  if (method === 'private_key_jwt') {
    const verify = await deps.clientAssertions();
    if (!(await verify(assertion!, client, endpoint))) throw assertionRefused();
    return { client, method };
  }
  if (method === 'none') return { client, method };
  if (secret === undefined || !verifyClientSecret(secret, client.secret_hash)) throw invalidClient();
  if (client.client_secret_expires_at && Date.parse(client.client_secret_expires_at) <= deps.now().getTime()) {
    throw invalidClient('The client secret has expired.');
  }
  return { client, method };
}
