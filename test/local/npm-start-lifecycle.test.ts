import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DYNAMODB_LOCAL_START_TIMEOUT_MS, freePort } from '../../infra/local/dynamodb-local.ts';

const ROOT = resolve(import.meta.dirname, '../..');

interface Started {
  npm: ChildProcess;
  port: number;
  dataDir: string;
  /** From runtime.json, which the running service writes. */
  serverPid: number;
  dynamodbPid: number;
  dynamodbPort: number;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running: Started[] = [];

/** How long `npm start` may take to listen: on a starved machine the JVM alone took over 60 s. */
const START_MS = DYNAMODB_LOCAL_START_TIMEOUT_MS + 60_000;
/** A test: the start, then stopping and the checks after it. */
const TEST_MS = START_MS + 60_000;

/** `npm start` exactly as a newcomer runs it, on a free port with its own data folder. */
async function npmStart(): Promise<Started> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  npm.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    npm.once('exit', (code, signal) => res({ code, signal })),
  );
  // DynamoDB Local's own start budget, then the server's start (tsx, table, bootstrap).
  const deadline = Date.now() + START_MS;
  while (!output.includes('listening on')) {
    if (npm.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const info = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as {
    serverPid: number;
    dynamodbPid: number;
    dynamodbEndpoint: string;
  };
  const started = {
    npm,
    port,
    dataDir,
    serverPid: info.serverPid,
    dynamodbPid: info.dynamodbPid,
    dynamodbPort: Number(new URL(info.dynamodbEndpoint).port),
    output: () => output,
    exit,
  };
  running.push(started);
  return started;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const accepts = (port: number) =>
  new Promise<boolean>((res) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      res(true);
    });
    socket.once('error', () => res(false));
  });

/** Polls until `pred` holds or `ms` pass (the processes need a moment to close their sockets). */
async function eventually(pred: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await pred()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return pred();
}

afterEach(() => {
  // Whatever a failed assertion left running, by the ids this test started.
  for (const s of running.splice(0)) {
    for (const pid of [s.npm.pid, s.serverPid, s.dynamodbPid]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(s.dataDir, { recursive: true, force: true });
  }
});

describe('npm start lifecycle: a stopped npm start leaves nothing behind', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(
      `${signal} to the npm process stops the server and DynamoDB Local`,
      async () => {
        const s = await npmStart();
        expect(await accepts(s.port)).toBe(true);
        expect(alive(s.dynamodbPid)).toBe(true);
        s.npm.kill(signal);
        await s.exit;
        expect(await eventually(() => !alive(s.serverPid) && !alive(s.dynamodbPid))).toBe(true);
        expect(await accepts(s.port)).toBe(false);
        expect(await accepts(s.dynamodbPort)).toBe(false);
        expect(s.output()).toContain(`${signal}: stopping`);
      },
      TEST_MS,
    );
  }

  it(
    'DynamoDB Local dying under a running service stops it with a clear message, not a server answering errors',
    async () => {
      const s = await npmStart();
      process.kill(s.dynamodbPid, 'SIGKILL');
      const { code } = await s.exit;
      expect(code).toBe(1);
      expect(s.output()).toMatch(/DynamoDB Local exited unexpectedly \(killed by SIGKILL\)/);
      expect(await eventually(() => !alive(s.serverPid))).toBe(true);
      expect(await accepts(s.port)).toBe(false);
    },
    TEST_MS,
  );
});
