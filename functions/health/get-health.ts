import { checkHealth } from '#shared/health/check-health.ts';
import { HealthResponseSchema } from '#shared/health/health-response-schema.ts';
import { jsonResponse } from '#shared/http/response.ts';
import { json } from '#shared/http/response-spec.ts';
import { httpHandler } from '#shared/http/table-handler.ts';
import { tableProbe } from '#shared/store/core/table-probe.ts';
import { SERVICE_VERSION } from '#shared/version.ts';

/** GET /company/v1/health and /api/company/v1/health (spec 4.4). */
export const handler = httpHandler({ responses: { 200: json(HealthResponseSchema) } }, async ({ runtime }) => {
  const report = await checkHealth({
    probeTable: tableProbe(runtime.db, runtime.config.tableName),
    serviceName: runtime.config.serviceName,
    serviceDescription: runtime.config.serviceDescription,
    version: SERVICE_VERSION,
  });
  return jsonResponse(200, report, { 'Cache-Control': 'no-store' });
});
