import { oauthHandler } from '#shared/http/oauth-handler.ts';
import { jsonResponse } from '#shared/http/response.ts';
import { json } from '#shared/http/response-spec.ts';
import { publicJwk } from '#shared/keys/jwk.ts';
import { JWKS_MAX_AGE_SECONDS } from '#shared/keys/key-timing.ts';
import { JwksResponseSchema } from '#shared/oauth/jwks-response-schema.ts';

/**
 * GET /.well-known/jwks.json: the JWK Set (RFC 7517 §5) of every published signing key: current,
 * next (published before it signs) and previous (until its tokens expire). Public members only:
 * each JWK is rebuilt from the whitelist of public members, so no `d`, `p`, `q`, `dp`, `dq`, `qi`
 * or `k` can appear. Cacheable: a next key is published long before it signs (docs/keys.md).
 */
export const handler = oauthHandler({ quietSuccess: true, responses: { 200: json(JwksResponseSchema) } }, async ({ runtime }) => {
  const entries = await runtime.keys.publishedKeys();
  const keys = entries.map((e) => publicJwk(e.jwk, e.kid, e.alg));
  return jsonResponse(200, { keys }, { 'Cache-Control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` });
});
