import { oauthHandler } from '#shared/http/oauth-handler.ts';
import { jsonResponse, NO_STORE } from '#shared/http/response.ts';
import { json } from '#shared/http/response-spec.ts';
import { authorizeDevice, DeviceCodeRequestSchema } from '#shared/oauth/device/device-authorization.ts';
import { DeviceAuthorizationResponseSchema } from '#shared/oauth/device/device-authorization-response-schema.ts';
import { rejectDuplicateParams } from '#shared/oauth/reject-duplicate-params.ts';
import { deviceAuthorizationDeps } from '#shared/wiring/authorize.ts';

/**
 * POST /device_code (RFC 8628 §3.1: a form body), and GET with the same parameters in the query
 * (spec 4.2 "Get device code" lists them as query parameters; docs/contract.md §5: GET accepted).
 */
export const handler = oauthHandler(
  {
    oauth: true,
    body: DeviceCodeRequestSchema,
    query: DeviceCodeRequestSchema,
    responses: { 200: json(DeviceAuthorizationResponseSchema) },
  },
  async (req) => {
    const get = req.route.method === 'GET';
    if (!get) rejectDuplicateParams(req.body, req.rawBody, req.headers['content-type']);
    const response = await authorizeDevice(req.headers, get ? req.query : req.body, deviceAuthorizationDeps(req.runtime));
    // RFC 8628 §3.2 answers 200; the device code is a secret: never cached.
    return jsonResponse(200, response, NO_STORE);
  },
);
