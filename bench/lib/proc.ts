import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { type DynamoDbLocal, freePort, startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';
import type { ProcessMemory } from './cpu.ts';

/**
 * Processes and CPU pinning. The machine has 2 cores: the servers under test (and DynamoDB Local,
 * which they spawn) get core 0, the load generator and the in-process measurements (this process)
 * get core 1, so the load generator never steals the server's core. `taskset` (util-linux) does
 * the pinning; without it everything runs unpinned and the report says so.
 */
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

let tasksetChecked: boolean | undefined;
export function canPin(): boolean {
  if (tasksetChecked === undefined) {
    const r = spawnSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    tasksetChecked = !r.error && r.status === 0 && cpuCount() >= 2;
  }
  return tasksetChecked;
}

export function cpuCount(): number {
  const r = spawnSync('nproc', [], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isFinite(n) && n > 0 ? n : 1;
}

/** Pins this process, every thread it has now (libuv pool, V8 workers) and every later one, to `cores` (`1`, `0,1`). */
export function pinSelf(cores: number | string): boolean {
  return pinProcess(process.pid, cores);
}

/** Pins process `pid` (every thread it has now, and the threads they start later) to `cores`. */
export function pinProcess(pid: number, cores: number | string): boolean {
  if (!canPin()) return false;
  const r = spawnSync('taskset', ['-a', '-p', '-c', String(cores), String(pid)], { stdio: 'ignore' });
  return r.status === 0;
}

/** The node binary of this process (the project pins Node 24 in node_modules; `npm run` puts it first on PATH). */
export const NODE = process.execPath;

export interface SpawnOptions {
  core?: number | undefined;
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Keep stderr for error messages instead of inheriting it. */
  quietStderr?: boolean;
  /** A server: stdout to /dev/null, the ready line on fd 3 (BENCH_READY_FD=3). */
  server?: boolean;
}

/** Spawns `node ...args`, pinned to `core` when pinning works (children of the child inherit it). */
export function spawnNode(args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  const pin = options.core !== undefined && canPin();
  const cmd = pin ? 'taskset' : NODE;
  const argv = pin ? ['-c', String(options.core), NODE, ...args] : [...args];
  return spawn(cmd, argv, {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, ...options.env, ...(options.server ? { BENCH_READY_FD: '3' } : {}) },
    stdio: options.server ? ['ignore', 'ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', options.quietStderr ? 'pipe' : 'inherit'],
  });
}

/** Waits for the first line (fd 3 of a server, else stdout) that parses as JSON with `ready: true`. */
export function waitForReady<T>(child: ChildProcess, what: string, timeoutMs = 120_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const stderr: string[] = [];
    child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    const input = (child.stdio[3] as NodeJS.ReadableStream | null | undefined) ?? child.stdout!;
    const rl = createInterface({ input });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not start within ${timeoutMs / 1000} s\n${stderr.join('')}`));
    }, timeoutMs);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) before it was ready\n${stderr.join('')}`));
    };
    child.once('exit', onExit);
    rl.on('line', (line) => {
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      if (msg && typeof msg === 'object' && (msg as { ready?: unknown }).ready === true) {
        clearTimeout(timer);
        child.off('exit', onExit);
        // Later lines on the channel (memory reports, see askMemory) go to `bench-line` listeners.
        rl.removeAllListeners('line');
        rl.on('line', (l) => {
          try {
            child.emit('bench-line', JSON.parse(l));
          } catch {
            /* not ours */
          }
        });
        child.stdout?.resume(); // keep draining so the child never blocks on a full pipe
        // From now on the server's stderr (errors only: its logs go to stdout) reaches ours, tagged.
        child.stderr?.removeAllListeners('data');
        child.stderr?.on('data', (d: Buffer) => process.stderr.write(`[${what}] ${d.toString()}`));
        resolve(msg as T);
      }
    });
  });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the child has exited. */
export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Runs `node ...args` to completion and returns its stdout (throws on a non-zero exit). */
export function runNode(
  args: readonly string[],
  options: SpawnOptions & { timeoutMs?: number } = {},
): Promise<{ stdout: string; wallMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawnNode(args, { ...options, quietStderr: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - t0;
      const stdout = Buffer.concat(out).toString();
      if (code === 0) resolve({ stdout, wallMs });
      else reject(new Error(`node ${args.join(' ')} exited ${code ?? signal}: ${Buffer.concat(err).toString().slice(-2000)}`));
    });
  });
}

/** A server's event-loop delay and GC pauses since its last report (bench/servers/announce.ts). */
export interface LoopReport {
  /** How late the loop ran a 5 ms timer, ms: what every request in the process waited on top of its own work. */
  delayP50Ms: number;
  delayP99Ms: number;
  delayMaxMs: number;
  gcCount: number;
  gcTotalMs: number;
  gcMaxMs: number;
}

/** What a server answers on SIGUSR2 (bench/servers/announce.ts); undefined if it does not answer within 3 s. */
export function askServer(child: ChildProcess): Promise<{ memory: ProcessMemory; loop?: LoopReport } | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('bench-line', onLine);
      resolve(undefined);
    }, 3000);
    const onLine = (msg: { memory?: ProcessMemory; loop?: LoopReport }) => {
      if (!msg.memory) return;
      clearTimeout(timer);
      child.off('bench-line', onLine);
      const { rss, heapUsed, heapTotal, external } = msg.memory;
      resolve({ memory: { rss, heapUsed, heapTotal, external }, ...(msg.loop ? { loop: msg.loop } : {}) });
    };
    child.on('bench-line', onLine);
    child.kill('SIGUSR2');
  });
}

/** A server's `process.memoryUsage()` (`askServer`). */
export async function askMemory(child: ChildProcess): Promise<ProcessMemory | undefined> {
  return (await askServer(child))?.memory;
}

/**
 * Starts `redis-server` (Debian package `redis-server`) on a free port, pinned to `core`, with no
 * persistence (nothing written to disk: the in-memory dataset, as a cache deployment runs it).
 * Returns undefined when the binary is not installed.
 */
export async function startRedis(core: number): Promise<{ child: ChildProcess; url: string; version: string } | undefined> {
  const which = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (which.error || which.status !== 0) return undefined;
  const version = /v=(\S+)/.exec(which.stdout)?.[1] ?? 'unknown';
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--loglevel',
    'warning',
  ];
  const pin = canPin();
  const child = spawn(pin ? 'taskset' : 'redis-server', pin ? ['-c', String(core), 'redis-server', ...args] : args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.resume();
  child.stderr!.resume();
  // Ready when it accepts a PING.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
    if (r.stdout?.trim() === 'PONG') break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port}`);
    }
    await new Promise((r2) => setTimeout(r2, 100));
  }
  return { child, url: `redis://127.0.0.1:${port}`, version };
}

/**
 * A DynamoDB Local of its own for a peer (oidc-provider's DynamoDB storage), in memory, moved to
 * `core` once it answers, as our server's DynamoDB Local runs on the server core (it is that
 * server's child there). Its JVM starts on this process's core, like ours on its server's: one
 * core seen at start, the same JVM sizing. Throws when it cannot start (no Java). Section 9 starts
 * it on the load core and moves it to the server core only after the password latency: a JVM
 * that has just started compiles for seconds, and on the server core that CPU landed in the
 * password grant's latency (2.19× instead of 1.40× in a `--quick --sections=9` run).
 */
export async function startPeerDynamoDbLocal(core: number): Promise<DynamoDbLocal> {
  const ddb = await startDynamoDbLocal({ dataDir: null });
  if (canPin() && !pinProcess(ddb.pid, core)) {
    await ddb.stop();
    throw new Error(`taskset could not move DynamoDB Local (pid ${ddb.pid}) to core ${core}`);
  }
  return ddb;
}
