import { oauthHandler } from '#shared/http/oauth-handler.ts';
import { NO_STORE } from '#shared/http/response.ts';
import { empty } from '#shared/http/response-spec.ts';
import { RevokeRequestSchema, revokeToken } from '#shared/oauth/revoke-token.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';

/** POST /revoke (spec 4.2, RFC 7009): 200 with an empty body on success. */
export const handler = oauthHandler(
  { oauth: true, body: RevokeRequestSchema, responses: { 200: empty('Revoked, or an unknown token (RFC 7009 §2.2)') } },
  async (req) => {
    await revokeToken(req.headers, req.body, oauthDeps(req.runtime));
    return { statusCode: 200, headers: { ...NO_STORE }, body: '' };
  },
);
