import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface HealthDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  serviceName: string;
  serviceDescription: string;
  version: string;
}

/** Spec 2.14: all four fields are strings. */
export interface HealthReport {
  server_name: string;
  server_version: string;
  server_status: 'ok' | 'degraded';
  server_description: string;
}

/** How long the health check waits for DynamoDB before calling the service degraded. */
const PROBE_TIMEOUT_MS = 1500;

/**
 * Spec 4.4 health: `ok` when the table answers a read, `degraded` otherwise. The probe is one
 * GetItem of a key that never exists (0.5 RCU), so it needs only read access.
 */
export async function checkHealth(deps: HealthDeps): Promise<HealthReport> {
  let status: HealthReport['server_status'] = 'ok';
  try {
    await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: { PK: 'HEALTH', SK: 'HEALTH' } }), {
      abortSignal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
  } catch {
    status = 'degraded';
  }
  return {
    server_name: deps.serviceName,
    server_version: deps.version,
    server_status: status,
    server_description: deps.serviceDescription,
  };
}
