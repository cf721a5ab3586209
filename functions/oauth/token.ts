import { oauthHandler } from '#shared/http/oauth-handler.ts';
import { jsonResponse, NO_STORE } from '#shared/http/response.ts';
import { json } from '#shared/http/response-spec.ts';
import { TokenRequestSchema } from '#shared/oauth/grants/token-grant.ts';
import { issueToken } from '#shared/oauth/issue-token.ts';
import { rejectDuplicateParams } from '#shared/oauth/reject-duplicate-params.ts';
import { TokenResponseSchema } from '#shared/oauth/token-response-schema.ts';
import { eventOrigin } from '#shared/records/event-record.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';

/** POST /token (spec 4.2, docs/contract.md §5.1). */
export const handler = oauthHandler(
  { oauth: true, quietSuccess: true, body: TokenRequestSchema, responses: { 200: json(TokenResponseSchema) } },
  async (req) => {
    rejectDuplicateParams(req.body, req.rawBody, req.headers['content-type']);
    // Token exchange's dependencies and their code load with the first exchange, not at a cold start
    // (docs/benchmarks.md "Token function bundle, token exchange"); built once per container.
    const exchange = async () => (await import('#shared/wiring/token-exchange.ts')).tokenExchangeDeps(req.runtime);
    const deps = oauthDeps(req.runtime);
    const origin = eventOrigin(req.requestId, req.sourceIp, req.headers['user-agent']);
    const response = await issueToken(req.headers, req.body, deps, exchange, origin);
    // RFC 9449 §8.2: a DPoP answer carries the nonce to use next, sparing the client a use_dpop_nonce round trip.
    const nonce: Record<string, string> = response.token_type === 'DPoP' ? { 'DPoP-Nonce': await deps.dpopNonces.current() } : {};
    return jsonResponse(200, response, { ...NO_STORE, ...nonce });
  },
);
