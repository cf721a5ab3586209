import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap } from '#shared/bootstrap/bootstrap.ts';
import { type Config, loadConfig } from '#shared/config.ts';
import { rotateKeys } from '#shared/keys/rotate-keys.ts';
import { createRuntime, type Runtime } from '#shared/runtime.ts';
import type { TestTable } from './dynamodb.ts';

/** A local-mode configuration on a test table (real DynamoDB Local, real AES-GCM master key in a temp dir). */
export function testConfig(table: TestTable, env: Record<string, string> = {}): Config {
  return loadConfig({
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    AWS_REGION: 'local',
    ISSUER: 'http://localhost:3999',
    KEY_MODE: 'local',
    LOCAL_MASTER_KEY_FILE: join(mkdtempSync(join(tmpdir(), 'idkeys-')), 'master.key'),
    ...env,
  });
}

/** A runtime of `testConfig`, reading through the test table's client. */
export function testRuntime(table: TestTable, env: Record<string, string> = {}, now?: () => Date): Runtime {
  return createRuntime(testConfig(table, env), { db: table.db, ...(now ? { now } : {}) });
}

/**
 * A local-mode runtime on a table filled as a deployed stage is before its first request: the
 * signing keys the rotation run makes, then bootstrap (system resource, Default Client). The
 * read-count tests start cold containers on it.
 */
export async function deployedRuntime(table: TestTable, env: Record<string, string> = {}): Promise<Runtime> {
  const runtime = testRuntime(table, env);
  await rotateKeys({ config: runtime.config, db: runtime.db, now: runtime.now });
  await bootstrap({
    db: runtime.db,
    tableName: runtime.config.tableName,
    secretBox: runtime.secretBox,
    now: runtime.now,
    managementAudience: runtime.config.managementAudience,
  });
  return runtime;
}
