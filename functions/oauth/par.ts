import { oauthHandler } from '#shared/http/oauth-handler.ts';
import { jsonResponse, NO_STORE } from '#shared/http/response.ts';
import { json } from '#shared/http/response-spec.ts';
import { checkPushedBody, PushedRequestSchema, pushAuthorizationRequest } from '#shared/oauth/par/push-authorization-request.ts';
import { PushedRequestResponseSchema } from '#shared/oauth/par/pushed-request-response-schema.ts';
import { rejectDuplicateParams } from '#shared/oauth/reject-duplicate-params.ts';
import { authorizeDeps } from '#shared/wiring/authorize.ts';

/** POST /par (RFC 9126 §2; docs/client-authentication.md "Pushed authorization requests (PAR)"). */
export const handler = oauthHandler(
  { oauth: true, body: PushedRequestSchema, responses: { 201: json(PushedRequestResponseSchema) } },
  async (req) => {
    checkPushedBody(req.rawBody, req.headers['content-type']);
    rejectDuplicateParams(req.body, req.rawBody, req.headers['content-type']);
    const response = await pushAuthorizationRequest(req.headers, req.body, authorizeDeps(req.runtime));
    // RFC 9126 §2.2: 201 Created; the request_uri is a one-time capability: never cached.
    return jsonResponse(201, response, NO_STORE);
  },
);
