import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bootstrap } from '../../shared/bootstrap/bootstrap.ts';
import { ensureStageKeys } from '../../shared/bootstrap/ensure-stage-keys.ts';
import { loadConfig } from '../../shared/config.ts';
import { createRuntime, type Runtime } from '../../shared/runtime.ts';
import type { Throttle } from '../../shared/routes.ts';
import { ensureTable, freePort, startDynamoDbLocal } from './dynamodb-local.ts';
import { startLocalServer } from './server.ts';

export interface LocalStackOptions {
  /** 0 picks a free port. */
  port: number;
  /** Where DynamoDB Local keeps its data and where the local master key lives; null = in memory and a temp key. */
  dataDir: string | null;
  /** Use this DynamoDB instead of spawning DynamoDB Local. */
  dynamodbEndpoint?: string | undefined;
  tableName: string;
  stageThrottle: Throttle;
  /** `stage-only`: every route uses the stage throttle (benchmarks must not measure 429s). */
  routeThrottles?: 'routes' | 'stage-only';
  /** Extra service settings (env names of shared/config.ts), e.g. MULTI_TENANT, DOCS_URL. */
  env?: Record<string, string | undefined>;
  defaultClientId?: string | undefined;
  defaultClientSecret?: string | undefined;
  /** The service's clock (DESIGN.md §3.2); tests pass one they can move instead of sleeping. */
  now?: () => Date;
}

export interface LocalStack {
  url: string;
  runtime: Runtime;
  dynamodbEndpoint: string;
  tableName: string;
  defaultClient: { clientId: string; clientSecret?: string | undefined; created: boolean };
  /** What bootstrap says the operator must know (shared/bootstrap), one sentence each. */
  notices: string[];
  stop(): Promise<void>;
}

/**
 * The whole service on this machine: DynamoDB Local (or a given endpoint), the table made from the
 * same definition as the CDK stack, the bootstrap records, and the HTTP adapter serving every route.
 * `npm start` and the end-to-end tests both run through here.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const port = options.port || (await freePort());
  const dataDir = options.dataDir === null ? null : resolve(options.dataDir);
  const keyDir = dataDir ?? join(resolve('.test-data'), `keys-${process.pid}-${port}`);
  mkdirSync(keyDir, { recursive: true });

  const ddb = options.dynamodbEndpoint ? undefined : await startDynamoDbLocal({ dataDir: dataDir && join(dataDir, 'dynamodb') });
  const endpoint = options.dynamodbEndpoint ?? ddb!.endpoint;
  try {
    await ensureTable(endpoint, options.tableName);
    const issuer = `http://localhost:${port}`;
    const config = loadConfig({
      TABLE_NAME: options.tableName,
      DYNAMODB_ENDPOINT: endpoint,
      AWS_REGION: 'local',
      ISSUER: issuer,
      STAGE: 'local',
      KEY_MODE: 'local',
      LOCAL_MASTER_KEY_FILE: join(keyDir, 'master.key'),
      ...options.env,
    });
    const runtime = createRuntime(config, options.now ? { now: options.now } : {});
    const notices: string[] = [];
    const defaultClient = await bootstrap({
      db: runtime.db,
      tableName: config.tableName,
      secretBox: runtime.secretBox,
      now: runtime.now,
      managementAudience: config.managementAudience,
      defaultClientId: options.defaultClientId,
      defaultClientSecret: options.defaultClientSecret,
      notify: (notice) => notices.push(notice),
    });
    // As a deploy does: the JWKS holds the current key before the first request (API.md §8).
    await ensureStageKeys(runtime);
    const server = await startLocalServer({ port, stageThrottle: options.stageThrottle, routeThrottles: options.routeThrottles ?? 'routes', docsUrl: config.docsUrl, runtime });
    const runtimeFile = dataDir ? join(dataDir, 'runtime.json') : undefined;
    if (runtimeFile) {
      writeFileSync(runtimeFile, JSON.stringify({ dynamodbEndpoint: endpoint, tableName: options.tableName, masterKeyFile: config.localMasterKeyFile, url: server.url }, null, 2));
    }
    return {
      url: server.url,
      runtime,
      dynamodbEndpoint: endpoint,
      tableName: options.tableName,
      defaultClient,
      notices,
      stop: async () => {
        await server.close();
        if (runtimeFile) rmSync(runtimeFile, { force: true });
        await ddb?.stop();
        if (!dataDir) rmSync(keyDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await ddb?.stop();
    throw err;
  }
}
