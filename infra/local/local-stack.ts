import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DependencyBudget } from '#shared/aws/dependency-budget.ts';
import { bootstrap } from '#shared/bootstrap/bootstrap.ts';
import { ensureStageKeys } from '#shared/bootstrap/ensure-stage-keys.ts';
import { loadConfig } from '#shared/config.ts';
import { jsonLinesPublisher } from '#shared/events/json-lines-publisher.ts';
import type { Throttle } from '#shared/routes/route.ts';
import { createRuntime, type Runtime } from '#shared/runtime.ts';
import { createDocumentClient } from '#shared/store/core/dynamodb-client.ts';
import { forwarderDepsWith } from '#shared/wiring/event-stream.ts';
import { liveApiDocs } from '../openapi/live-api-docs.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { type DynamoDbLocal, ensureTable, freePort, startDynamoDbLocal } from './dynamodb-local.ts';
import { type LocalEventStream, startLocalEventStream } from './event-stream.ts';
import { type LocalServerOptions, startLocalServer } from './server.ts';

/**
 * DynamoDB Local's JVM is cold when it starts: its first transactions can take seconds on a busy
 * machine, far beyond a request's budget. Bootstrap and the first stage keys, which run them, get this one; the
 * requests after it run with the service's own budgets (config.budgets).
 */
const STARTUP_BUDGET: DependencyBudget = { connectTimeoutMs: 5000, attemptTimeoutMs: 15_000, maxAttempts: 3 };

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
  /** The service's clock (docs/design.md §3.2); tests pass one they can move instead of sleeping. */
  now?: () => Date;
  /** Sees every answer of the server (infra/local/server.ts `observe`). */
  observe?: LocalServerOptions['observe'];
  /**
   * Where the table stream's events go, one JSON line each (docs/events.md "Locally: events.jsonl"):
   * `npm start` gives `<DATA_DIR>/events.jsonl`. Unset: the table has no stream and nothing reads it.
   */
  eventsFile?: string | undefined;
}

export interface LocalStack {
  url: string;
  runtime: Runtime;
  dynamodbEndpoint: string;
  tableName: string;
  defaultClient: { clientId: string; clientSecret?: string | undefined; created: boolean };
  /** The DynamoDB Local this stack spawned (undefined with a given endpoint); `exited` settles when it ends, whoever ended it. */
  dynamodbLocal: DynamoDbLocal | undefined;
  /** What bootstrap says the operator must know (shared/bootstrap), one sentence each. */
  notices: string[];
  /** The file the stream's events are written to (`eventsFile`), if any. */
  eventsFile: string | undefined;
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
  // Before anything opens the folder's database: a second `npm start` on it is refused here.
  const lock = dataDir ? lockDataDir(dataDir) : undefined;

  let ddb: DynamoDbLocal | undefined;
  let events: LocalEventStream | undefined;
  try {
    ddb = options.dynamodbEndpoint ? undefined : await startDynamoDbLocal({ dataDir: dataDir && join(dataDir, 'dynamodb') });
    const endpoint = options.dynamodbEndpoint ?? ddb!.endpoint;
    await ensureTable(endpoint, options.tableName, 'local', { stream: options.eventsFile !== undefined });
    const issuer = `http://localhost:${port}`;
    const config = loadConfig({
      TABLE_NAME: options.tableName,
      DYNAMODB_ENDPOINT: endpoint,
      AWS_REGION: 'local',
      ISSUER: issuer,
      STAGE: 'local',
      KEY_MODE: 'local',
      LOCAL_MASTER_KEY_FILE: join(keyDir, 'master.key'),
      // Email goes to files locally (docs/contract.md §7.2): <DATA_DIR>/outbox, or the stack's temp folder.
      OUTBOX_DIR: join(dataDir ?? keyDir, 'outbox'),
      ...options.env,
    });
    const runtime = createRuntime(config, { apiDocs: liveApiDocs(), ...(options.now ? { now: options.now } : {}) });
    const startupDb = createDocumentClient({ region: config.region, endpoint, budget: STARTUP_BUDGET });
    const notices: string[] = [];
    const defaultClient = await bootstrap({
      db: startupDb,
      tableName: config.tableName,
      secretBox: runtime.secretBox,
      now: runtime.now,
      managementAudience: config.managementAudience,
      defaultClientId: options.defaultClientId,
      defaultClientSecret: options.defaultClientSecret,
      notify: (notice) => notices.push(notice),
    });
    // As a deploy does: the JWKS holds the current key before the first request (docs/contract.md §8).
    await ensureStageKeys({ ...runtime, db: startupDb });
    startupDb.destroy();
    // Before the first request, so that no event is written before the stream is read.
    events = options.eventsFile
      ? await startLocalEventStream({
          endpoint,
          region: config.region,
          tableName: options.tableName,
          deps: forwarderDepsWith(runtime, jsonLinesPublisher(options.eventsFile)),
          onError: (err) => process.stderr.write(`events.jsonl: ${(err as Error).message}\n`),
        })
      : undefined;
    const server = await startLocalServer({
      port,
      stageThrottle: options.stageThrottle,
      routeThrottles: options.routeThrottles ?? 'routes',
      docsUrl: config.docsUrl,
      runtime,
      ...(options.observe ? { observe: options.observe } : {}),
    });
    const runtimeFile = dataDir ? join(dataDir, 'runtime.json') : undefined;
    if (runtimeFile) {
      writeFileSync(
        runtimeFile,
        JSON.stringify(
          {
            dynamodbEndpoint: endpoint,
            dynamodbPid: ddb?.pid,
            serverPid: process.pid,
            tableName: options.tableName,
            masterKeyFile: config.localMasterKeyFile,
            url: server.url,
          },
          null,
          2,
        ),
      );
    }
    return {
      url: server.url,
      runtime,
      dynamodbEndpoint: endpoint,
      tableName: options.tableName,
      defaultClient,
      dynamodbLocal: ddb,
      notices,
      eventsFile: options.eventsFile,
      stop: async () => {
        await server.close();
        await events?.stop();
        if (runtimeFile) rmSync(runtimeFile, { force: true });
        await ddb?.stop();
        lock?.release();
        if (!dataDir) rmSync(keyDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await events?.stop();
    await ddb?.stop();
    lock?.release();
    throw err;
  }
}
