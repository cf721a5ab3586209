import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../shared/config.ts';
import { createRuntime, type Runtime } from '../../shared/runtime.ts';
import type { TestTable } from './dynamodb.ts';

/** A local-mode runtime on a test table (real DynamoDB Local, real AES-GCM master key in a temp dir). */
export function testRuntime(table: TestTable, env: Record<string, string> = {}, now?: () => Date): Runtime {
  const config = loadConfig({
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    AWS_REGION: 'local',
    ISSUER: 'http://localhost:3999',
    KEY_MODE: 'local',
    LOCAL_MASTER_KEY_FILE: join(mkdtempSync(join(tmpdir(), 'idkeys-')), 'master.key'),
    ...env,
  });
  return createRuntime(config, { db: table.db, ...(now ? { now } : {}) });
}
