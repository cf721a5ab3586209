import * as v from 'valibot';
import { oauthError } from '../errors.ts';
import { InvalidAccessToken } from '../tokens/verify-access-token.ts';
import { authenticateClient } from './authenticate-client.ts';
import { CLIENT_ASSERTION_PARAMS } from './client-auth/client-assertion.ts';
import { maySee } from './may-see-token.ts';
import type { OAuthClient, OAuthDeps } from './oauth-deps.ts';
import { verifyIssuedToken } from './verify-resource-token.ts';

const optional = v.optional(v.pipe(v.string(), v.maxLength(8192)));

/** Spec body (JSON `{client_id, token}`) and RFC 7009 §2.1 form body (`token`, `token_type_hint`). */
export const RevokeRequestSchema = v.looseObject({
  token: v.pipe(v.string('token is required'), v.minLength(1, 'token is required'), v.maxLength(8192)),
  token_type_hint: optional,
  client_id: optional,
  client_secret: optional,
  // private_key_jwt (RFC 7523 §2.2): checked by authenticate-client.ts.
  ...CLIENT_ASSERTION_PARAMS,
});
export type RevokeRequest = v.InferOutput<typeof RevokeRequestSchema>;

const notYours = () => oauthError(400, 'unauthorized_client', 'body.token: was not issued to this client.');

/**
 * RFC 7009 §2.1: the client authenticates; a token it does not own is refused; an unknown,
 * invalid or already expired token is a success (§2.2: "invalid tokens do not cause an error").
 * A token the caller may not see (another tenant's, for a non-global caller) is unknown to it,
 * so it gets the same 200 and nothing is recorded: the answer never says that a token exists in
 * another tenant. `unauthorized_client` is only for a token of a tenant the caller sees, issued
 * to another client.
 *
 * An access token is revoked until it would have expired anyway, bound to what verified it and
 * to its client (docs/contract.md §8): it only ever revokes itself. A refresh token revokes its family: every
 * refresh token of that login and, through their `sid`, the access and ID tokens issued from it
 * (RFC 7009 §2.1: "the authorization server ... SHOULD also invalidate all access tokens based on
 * the same authorization grant").
 *
 * Which kind a token is follows from its shape (a JWT has three dot-separated parts; a refresh
 * token is one base64url string), so `token_type_hint` is only a hint (§2.1): a wrong one
 * changes nothing.
 */
export async function revokeToken(headers: Record<string, string | undefined>, body: RevokeRequest, deps: OAuthDeps): Promise<void> {
  const { client } = await authenticateClient(headers, body, deps, '/revoke');
  if (!body.token.includes('.')) return revokeRefreshToken(client, body.token, deps);
  let verified;
  try {
    verified = await verifyIssuedToken(body.token, deps);
  } catch (err) {
    if (err instanceof InvalidAccessToken) return;
    throw err;
  }
  const { claims, ref } = verified;
  if (!maySee(client, claims)) return;
  if (ref.clientId !== client.id) throw notYours();
  // `conflict`: the jti is already revoked, under the same verifier, as another client's token.
  if ((await deps.revocations.revoke(ref, new Date(claims.exp * 1000))) === 'conflict') throw notYours();
}

async function revokeRefreshToken(client: OAuthClient, token: string, deps: OAuthDeps): Promise<void> {
  const stored = await deps.refreshTokens.find(token);
  if (!stored || !maySee(client, stored)) return;
  if (stored.client_id !== client.id) throw notYours();
  await deps.refreshTokens.revokeFamily(stored.family_id);
}
