import autocannon from 'autocannon';
import {
  coreBusySeconds,
  cpuSecondsOf,
  databaseProcesses,
  descendants,
  mainThreadSchedSeconds,
  othersShareOfCore,
  type ProcessMemory,
  processCpuSeconds,
  rssBytes,
} from './cpu.ts';
import { canPin, SERVER_CORE } from './proc.ts';
import { round } from './stats.ts';

export interface LoadTarget {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Bodies to send round-robin instead of `body` (e.g. many distinct tokens to introspect). */
  bodies?: readonly string[];
  /** Each connection carries a value from one response into its next request (a rotating refresh token). */
  chain?: Chain;
}

/**
 * A value passed from a response to a later request: `start` makes one per connection before the
 * run (not measured), `body` builds a request from one, `next` reads the following value from a
 * 2xx response. Each value is used once; a run's leftovers are dropped.
 */
export interface Chain {
  start(connections: number): Promise<string[]>;
  body(value: string): string;
  next(responseBody: string): string | undefined;
}

/** The processes one side runs on: its server process, and the database it needs (ours: DynamoDB Local, a child of the server; oidc-provider with Redis: redis-server). */
export interface SideProcesses {
  /** The server process. */
  pid?: number | undefined;
  /** Database processes that are not the server's children (redis-server). DynamoDB Local is found as a child of our server. */
  dbPids?: readonly number[];
  /** Reads the server's heap (asks the process itself; see bench/servers/announce.ts). */
  heap?: () => Promise<ProcessMemory | undefined>;
}

export type { ProcessMemory } from './cpu.ts';

export interface LoadResult {
  /** Successful (2xx) responses per second over the run. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses by status class plus connection errors and timeouts. */
  ok: number;
  non2xx: number;
  throttled: number;
  errors: number;
  timeouts: number;
  durationS: number;
  /**
   * CPU the side used during the run. `serverCpuS`: the server process alone; `dbCpuS`: its
   * database (ours: the DynamoDB Local JVM, a child of the server; oidc-provider with Redis: the
   * redis-server process; 0 for an in-memory adapter). Both run on the server core, so both are
   * this side's CPU. `serverCpuShare`: (server + database) CPU over the wall time, i.e. how much of
   * its core the side got.
   */
  serverCpuS: number;
  dbCpuS: number;
  serverCpuShare: number;
  /** 2xx per CPU-second of the server process alone, and of server + database. */
  okPerCpuS: number;
  okPerCpuSWithDb: number;
  /**
   * The "starved share": how much of the run other processes took from the side. Pinned (the
   * servers on SERVER_CORE): that core's busy time from /proc/stat minus the side's own CPU (server
   * + database), over the wall time. Unpinned (no core is the side's): the share of the run the
   * server's main thread was runnable but waiting for a core, i.e. every core was busy.
   */
  serverWaitShare: number;
  /** Highest resident set size seen during the run (sampled every 250 ms), bytes: server process, and database processes. */
  serverRssMax: number;
  dbRssMax: number;
  /** The server's heap in the middle of the run, when the side can report it. */
  heapMid?: ProcessMemory | undefined;
}

/** The side's database processes: below the server (DynamoDB Local) and beside it (redis-server, and its children). */
export function dbPidsOf(p: SideProcesses): number[] {
  if (!p.pid) return [];
  return [...databaseProcesses(p.pid), ...(p.dbPids ?? []).flatMap((d) => descendants(d))];
}

const dbRss = (pids: readonly number[]) => pids.reduce((a, d) => a + (rssBytes(d) || 0), 0);

/**
 * One autocannon run (programmatic, in this process, which the bench pins to the load core).
 * Keep-alive connections, no pipelining: each connection has one request in flight, as a client
 * SDK with a connection pool does (a closed loop: the next request waits for the answer). `rps`
 * counts 2xx only, so errors can never inflate it.
 */
export async function runLoad(
  target: LoadTarget,
  opts: { connections: number; durationS: number; side?: SideProcesses | undefined },
): Promise<LoadResult> {
  const side = opts.side ?? {};
  const chained = target.chain ? chainedRequest(target, await target.chain.start(opts.connections)) : undefined;
  const pid = side.pid;
  const cpu0 = pid ? processCpuSeconds(pid) : Number.NaN;
  const dbPids = dbPidsOf(side);
  const db0 = cpuSecondsOf(dbPids);
  const pinned = canPin();
  const core0 = pinned ? coreBusySeconds(SERVER_CORE) : Number.NaN;
  const wall0 = performance.now();
  const main0 = pid && !pinned ? mainThreadSchedSeconds(pid) : undefined;
  let serverRssMax = 0;
  let dbRssMax = 0;
  const sample = () => {
    if (!pid) return;
    serverRssMax = Math.max(serverRssMax, rssBytes(pid) || 0);
    dbRssMax = Math.max(dbRssMax, dbRss(dbPids));
  };
  const sampler = setInterval(sample, 250);
  let heapMid: Promise<ProcessMemory | undefined> | undefined;
  const midTimer = side.heap ? setTimeout(() => (heapMid = side.heap!().catch(() => undefined)), (opts.durationS * 1000) / 2) : undefined;
  let result: autocannon.Result;
  try {
    result = await autocannon({
      url: target.url,
      method: target.method,
      headers: target.headers,
      ...(target.body !== undefined ? { body: target.body } : {}),
      ...(target.bodies?.length ? { requests: [roundRobin(target)] } : {}),
      ...(chained ? { requests: [chained] } : {}),
      connections: opts.connections,
      pipelining: 1,
      duration: opts.durationS,
      timeout: 10,
      renderProgressBar: false,
      renderResultsTable: false,
    } as autocannon.Options);
  } finally {
    clearInterval(sampler);
    if (midTimer) clearTimeout(midTimer);
  }
  sample();
  const serverCpuS = pid ? processCpuSeconds(pid) - cpu0 : Number.NaN;
  const dbCpuS = cpuSecondsOf(dbPids) - db0;
  const starvedShare = !pid
    ? Number.NaN
    : pinned
      ? othersShareOfCore(coreBusySeconds(SERVER_CORE) - core0, serverCpuS + dbCpuS, (performance.now() - wall0) / 1000)
      : (mainThreadSchedSeconds(pid).wait - (main0?.wait ?? Number.NaN)) / result.duration;
  const stats = (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  return {
    rps: round(result['2xx'] / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    throttled: stats['429']?.count ?? 0,
    errors: result.errors,
    timeouts: result.timeouts,
    durationS: round(result.duration),
    serverCpuS: round(serverCpuS),
    dbCpuS: round(dbCpuS),
    serverCpuShare: round((serverCpuS + dbCpuS) / result.duration),
    okPerCpuS: round(result['2xx'] / serverCpuS),
    okPerCpuSWithDb: round(result['2xx'] / (serverCpuS + dbCpuS)),
    serverWaitShare: round(starvedShare),
    serverRssMax,
    dbRssMax,
    heapMid: heapMid ? await heapMid : undefined,
  };
}

/** One autocannon request whose body cycles through `bodies` (each connection builds its next request from it). */
function roundRobin(target: LoadTarget) {
  const bodies = target.bodies!;
  let i = 0;
  return {
    method: target.method,
    headers: target.headers,
    setupRequest: (req: Record<string, unknown>) => ({ ...req, body: bodies[i++ % bodies.length] }),
  };
}

/**
 * One autocannon request that takes a chain value from a shared pool and puts the next one back
 * from its answer. (autocannon resets a connection's context before each request when `requests`
 * has one entry, so the pool, not the context, carries the values; each value is used once
 * whichever connection takes it.)
 */
function chainedRequest(target: LoadTarget, values: string[]) {
  const chain = target.chain!;
  return {
    method: target.method,
    headers: target.headers,
    setupRequest: (req: Record<string, unknown>) => ({ ...req, body: chain.body(values.shift() ?? '') }),
    onResponse: (status: number, body: string) => {
      const next = status >= 200 && status < 300 ? chain.next(body) : undefined;
      if (next) values.push(next);
    },
  };
}
