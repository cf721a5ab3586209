import { checkHealth } from '#shared/health/check-health.ts';
import { HealthResponseSchema } from '#shared/health/health-response-schema.ts';
import { jsonResponse } from '#shared/http/response.ts';
import { json } from '#shared/http/response-spec.ts';
import { healthDeps } from '#shared/wiring/health.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';

/** GET /company/v1/health and /api/company/v1/health (spec 4.4). */
export const handler = httpHandler({ responses: { 200: json(HealthResponseSchema) } }, async ({ runtime }) => {
  const report = await checkHealth(healthDeps(runtime));
  return jsonResponse(200, report, { 'Cache-Control': 'no-store' });
});
