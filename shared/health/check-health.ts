export interface HealthDeps {
  /** Reads the table once (store/table-probe.ts); rejects when the table does not answer before `signal` aborts. */
  probeTable: (signal: AbortSignal) => Promise<void>;
  serviceName: string;
  serviceDescription: string;
  version: string;
}

/** Spec 2.14: all four fields are strings; `failed_dependencies` (a string too) only when degraded. */
export interface HealthReport {
  server_name: string;
  server_version: string;
  server_status: 'ok' | 'degraded';
  server_description: string;
  /** Which dependencies did not answer, comma-separated (`dynamodb`); never an error's details. */
  failed_dependencies?: string;
}

/**
 * Health's own budget, about a second in all (docs/operations.md): up to HEALTH_KEY_WAIT_MS for
 * the signing keys that check the caller's token (then the last keys read), up to
 * HEALTH_PROBE_TIMEOUT_MS for the table probe. Both are far shorter than the request budgets of
 * the other routes, so a stall shows as `degraded` here first, and the health alarms fire on it.
 */
export const HEALTH_KEY_WAIT_MS = 250;
export const HEALTH_PROBE_TIMEOUT_MS = 700;

/**
 * Spec 4.4 health: `ok` when the table answers a read within HEALTH_PROBE_TIMEOUT_MS, `degraded`
 * otherwise, naming the dependency. The probe is one GetItem of a key that never exists (0.5 RCU),
 * so it needs only read access. KMS is not probed: health has no KMS grant, and a KMS outage only
 * matters to cold signers and secret writes (it shows in the dependency-timeout alarm).
 */
export async function checkHealth(deps: HealthDeps): Promise<HealthReport> {
  const failed: string[] = [];
  try {
    await deps.probeTable(AbortSignal.timeout(HEALTH_PROBE_TIMEOUT_MS));
  } catch {
    failed.push('dynamodb');
  }
  return {
    server_name: deps.serviceName,
    server_version: deps.version,
    server_status: failed.length ? 'degraded' : 'ok',
    server_description: deps.serviceDescription,
    ...(failed.length ? { failed_dependencies: failed.join(',') } : {}),
  };
}
