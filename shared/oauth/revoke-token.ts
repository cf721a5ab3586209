import * as v from 'valibot';
import { oauthError } from '../errors.ts';
import { InvalidAccessToken } from '../tokens/verify-access-token.ts';
import { verifyIssuedToken } from './verify-resource-token.ts';
import { authenticateClient } from './authenticate-client.ts';
import type { OAuthDeps } from './oauth-deps.ts';

const optional = v.optional(v.pipe(v.string(), v.maxLength(8192)));

/** Spec body (JSON `{client_id, token}`) and RFC 7009 §2.1 form body (`token`, `token_type_hint`). */
export const RevokeRequestSchema = v.looseObject({
  token: v.pipe(v.string('token is required'), v.minLength(1, 'token is required'), v.maxLength(8192)),
  token_type_hint: optional,
  client_id: optional,
  client_secret: optional,
});
export type RevokeRequest = v.InferOutput<typeof RevokeRequestSchema>;

/**
 * RFC 7009 §2.1: the client authenticates; a token it does not own is refused; an unknown,
 * invalid or already expired token is a success (§2.2: "invalid tokens do not cause an error").
 * An access token is revoked by jti until it would have expired anyway. Refresh tokens join
 * when they exist.
 */
export async function revokeToken(headers: Record<string, string | undefined>, body: RevokeRequest, deps: OAuthDeps): Promise<void> {
  const { client } = await authenticateClient(headers, body, deps);
  let claims;
  try {
    claims = await verifyIssuedToken(body.token, deps);
  } catch (err) {
    if (err instanceof InvalidAccessToken) return;
    throw err;
  }
  if (claims.client_id !== client.id) {
    throw oauthError(400, 'unauthorized_client', 'body.token: was not issued to this client.');
  }
  await deps.revocations.revoke(claims.jti, client.id, new Date(claims.exp * 1000));
}
