import { oauthHandler } from '#shared/http/oauth-handler.ts';
import { jsonResponse } from '#shared/http/response.ts';
import { json } from '#shared/http/response-spec.ts';
import { buildDiscoveryDocument } from '#shared/oauth/discovery-document.ts';
import { DiscoveryResponseSchema } from '#shared/oauth/discovery-response-schema.ts';

/**
 * GET /.well-known/openid-configuration (OIDC Discovery 1.0 §4) and
 * GET /.well-known/oauth-authorization-server (RFC 8414 §3): the same metadata document, listing
 * only what the service implements today (decisions in docs/keys.md).
 */
export const handler = oauthHandler({ quietSuccess: true, responses: { 200: json(DiscoveryResponseSchema) } }, async ({ runtime }) =>
  jsonResponse(200, buildDiscoveryDocument(runtime.config), { 'Cache-Control': 'public, max-age=300' }),
);
