/** The health check's dependencies (functions/health/), built from the runtime once per container. */
import type { HealthDeps } from '../health/check-health.ts';
import type { Runtime } from '../runtime.ts';
import { tableProbe } from '../store/core/table-probe.ts';
import { SERVICE_VERSION } from '../version.ts';
import { perRuntime } from './per-runtime.ts';

export const healthDeps = /* @__PURE__ */ perRuntime(
  (runtime: Runtime): HealthDeps => ({
    probeTable: tableProbe(runtime.db, runtime.config.tableName),
    serviceName: runtime.config.serviceName,
    serviceDescription: runtime.config.serviceDescription,
    version: SERVICE_VERSION,
  }),
);
