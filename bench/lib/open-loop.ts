import { Agent, request } from 'node:http';
import type { LoadTarget } from './load.ts';
import { percentile, round } from './stats.ts';

export interface OpenLoopResult {
  targetRps: number;
  /** Requests actually sent per second, and 2xx answers per second. */
  sentRps: number;
  okRps: number;
  sent: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** Answers still missing when the run ended (counted as errors). */
  unanswered: number;
  /** Latency from the request's scheduled time to the end of its answer, ms. */
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  /** How late this process sent requests behind their schedule, ms (its own share of the latency). */
  sendLagP50Ms: number;
  sendLagP99Ms: number;
  /** Most requests in flight at once (connections the open loop needed). */
  maxInFlight: number;
  durationS: number;
}

/**
 * Open-loop load at a fixed arrival rate: request k is due at t0 + k / rate whatever happened to
 * the earlier ones, as independent callers arrive in production (a closed loop such as
 * autocannon's waits for each answer, so a slow server receives fewer requests and its queueing
 * delay never shows: "coordinated omission"). Latency is measured from the scheduled time, so a
 * request that had to wait for a free connection or for this process counts that wait too; the
 * send lag says how much of it was this process. Keep-alive connections are opened as needed
 * (at most `maxInFlight`).
 */
export async function runOpenLoop(
  target: LoadTarget,
  rate: number,
  durationS: number,
  maxInFlight = 512,
  onAnswer?: (dueEpochMs: number, latencyMs: number) => void,
): Promise<OpenLoopResult> {
  const url = new URL(target.url);
  const agent = new Agent({ keepAlive: true, maxSockets: maxInFlight });
  const bodies = target.bodies?.length ? target.bodies : [target.body ?? ''];
  const latencies: number[] = [];
  const lags: number[] = [];
  let sent = 0;
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let inFlight = 0;
  let peak = 0;
  const total = Math.round(rate * durationS);
  const interval = 1000 / rate;
  const t0 = performance.now() + 20;
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));

  const send = (due: number) => {
    const body = bodies[sent % bodies.length]!;
    sent++;
    inFlight++;
    peak = Math.max(peak, inFlight);
    lags.push(performance.now() - due);
    const finish = (status: number) => {
      inFlight--;
      const ms = performance.now() - due;
      latencies.push(ms);
      onAnswer?.(performance.timeOrigin + due, ms);
      if (status >= 200 && status < 300) ok++;
      else if (status > 0) non2xx++;
      else errors++;
      if (sent === total && inFlight === 0) resolveDone();
    };
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: target.method,
        headers: { ...target.headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => finish(res.statusCode ?? 0));
        res.on('error', () => finish(0));
      },
    );
    req.on('error', () => finish(0));
    req.end(body);
  };

  // setImmediate, not a 1 ms timer: the answers take about a millisecond, so the schedule must be
  // finer than that. This process has its own core, so spinning costs the servers nothing.
  const tick = () => {
    const now = performance.now();
    while (sent < total && t0 + sent * interval <= now) {
      if (inFlight >= maxInFlight) break;
      send(t0 + sent * interval);
    }
    if (sent < total) setImmediate(tick);
  };
  setImmediate(tick);
  const deadline = setTimeout(resolveDone, durationS * 1000 + 10_000);
  await done;
  clearTimeout(deadline);
  const elapsed = (performance.now() - t0) / 1000;
  const unanswered = inFlight;
  agent.destroy();
  return {
    targetRps: round(rate),
    sentRps: round(sent / Math.min(elapsed, durationS + 0.5)),
    okRps: round(ok / elapsed),
    sent,
    ok,
    non2xx,
    errors: errors + unanswered,
    unanswered,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    p999Ms: round(percentile(latencies, 99.9)),
    maxMs: round(Math.max(...latencies)),
    sendLagP50Ms: round(percentile(lags, 50)),
    sendLagP99Ms: round(percentile(lags, 99)),
    maxInFlight: peak,
    durationS: round(elapsed),
  };
}
