import autocannon from 'autocannon';
import { processCpuSeconds, schedSeconds, treeCpuSeconds } from './cpu.ts';
import { round } from './stats.ts';

export interface LoadTarget {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Bodies to send round-robin instead of `body` (e.g. many distinct tokens to introspect). */
  bodies?: readonly string[];
}

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
   * CPU the server side used during the run: `serverCpuS` is the server process alone (our node
   * process, not DynamoDB Local, which in AWS is not our CPU); `serverCpuShare` is the whole process
   * tree (with DynamoDB Local) over the wall time, i.e. how much of its core the server side got;
   * `okPerCpuS` is 2xx per CPU-second of the server process.
   */
  serverCpuS: number;
  serverCpuShare: number;
  okPerCpuS: number;
  /** Share of the run the server process's threads were runnable but waiting for a core (starved by other processes). */
  serverWaitShare: number;
}

/**
 * One autocannon run (programmatic, in this process, which the bench pins to the load core).
 * Keep-alive connections, no pipelining: each connection has one request in flight, as a client
 * SDK with a connection pool does. `rps` counts 2xx only, so errors can never inflate it.
 */
export async function runLoad(target: LoadTarget, opts: { connections: number; durationS: number; serverPid?: number | undefined }): Promise<LoadResult> {
  const pid = opts.serverPid;
  const cpu0 = pid ? processCpuSeconds(pid) : Number.NaN;
  const tree0 = pid ? treeCpuSeconds(pid) : Number.NaN;
  const sched0 = pid ? schedSeconds(pid) : undefined;
  const result = await autocannon({
    url: target.url,
    method: target.method,
    headers: target.headers,
    ...(target.body !== undefined ? { body: target.body } : {}),
    ...(target.bodies?.length ? { requests: [roundRobin(target)] } : {}),
    connections: opts.connections,
    pipelining: 1,
    duration: opts.durationS,
    timeout: 10,
    // Status codes per code (for the 429 count); no console table.
    renderProgressBar: false,
    renderResultsTable: false,
  } as autocannon.Options);
  const serverCpuS = pid ? processCpuSeconds(pid) - cpu0 : Number.NaN;
  const treeCpuS = pid ? treeCpuSeconds(pid) - tree0 : Number.NaN;
  const waitS = pid && sched0 ? schedSeconds(pid).wait - sched0.wait : Number.NaN;
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
    serverCpuShare: round(treeCpuS / result.duration),
    okPerCpuS: round(result['2xx'] / serverCpuS),
    serverWaitShare: round(waitS / result.duration),
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
