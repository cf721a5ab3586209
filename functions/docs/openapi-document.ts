import * as v from 'valibot';
import { jsonResponse } from '#shared/http/response.ts';
import { json } from '#shared/http/response-spec.ts';
import { apiDocsOf } from '#shared/openapi/api-docs.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';

const OpenApiDocument = v.object({
  openapi: v.string(),
  info: v.object({ title: v.string(), version: v.string() }),
  paths: v.record(v.string(), v.unknown()),
});

/** GET /openapi.json: the OpenAPI 3.1 document of the route table (docs/openapi.md), with this stage's base URL as its server. */
export const handler = httpHandler(
  { quietSuccess: true, responses: { 200: json(OpenApiDocument, 'The OpenAPI 3.1 document') } },
  async ({ runtime }) => {
    const document = await apiDocsOf(runtime).document();
    return jsonResponse(200, { ...document, servers: [{ url: runtime.config.issuer }] }, { 'Cache-Control': 'public, max-age=300' });
  },
);
