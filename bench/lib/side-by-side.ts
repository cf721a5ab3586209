import { runLoad, type LoadResult, type LoadTarget } from './load.ts';
import { median, round } from './stats.ts';

export interface SideBySideOptions {
  connections: number;
  durationS: number;
  warmupS: number;
  rounds: number;
  log: (line: string) => void;
}

export interface SideSummary {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Summed over the measured rounds. */
  ok: number;
  non2xx: number;
  throttled: number;
  errors: number;
  /** Highest throughput of any measured run (to tell whether a route throttle would have capped it). */
  peakRps: number;
  /** Median share of a core the server side (process tree) got during the runs, and 2xx per CPU-second of the server process. */
  cpuShare: number;
  perCpuS: number;
  /** Median share of the run the server waited for a core (other processes had it). */
  waitShare: number;
}

export interface SideBySideResult {
  connections: number;
  durationS: number;
  rounds: { ours: LoadResult; theirs: LoadResult; order: 'ours-first' | 'theirs-first' }[];
  /** Medians over the rounds. */
  ours: SideSummary;
  theirs: SideSummary;
  /** ours / theirs of the median throughput; > 1 means we serve more per second. */
  ratio: number;
  /** theirs / ours of the median p99 latency; > 1 means our tail is shorter. */
  p99Ratio: number;
  /** ours / theirs of requests per server CPU-second: the same comparison, robust to a busy machine. */
  cpuRatio: number;
}

function summarize(runs: LoadResult[]): SideSummary {
  const total = (k: 'ok' | 'non2xx' | 'throttled' | 'errors') => runs.reduce((a, r) => a + r[k], 0);
  return {
    rps: round(median(runs.map((r) => r.rps))),
    p50Ms: round(median(runs.map((r) => r.p50Ms))),
    p99Ms: round(median(runs.map((r) => r.p99Ms))),
    ok: total('ok'),
    non2xx: total('non2xx'),
    throttled: total('throttled'),
    errors: total('errors'),
    peakRps: Math.max(...runs.map((r) => r.rps)),
    cpuShare: round(median(runs.map((r) => r.serverCpuShare))),
    perCpuS: round(median(runs.map((r) => r.okPerCpuS))),
    waitShare: round(median(runs.map((r) => r.serverWaitShare))),
  };
}

/**
 * The same load generator, connections and duration against both servers, alternating: each round
 * runs both, and the order flips every round (ours first, then theirs first, ...) so that a drift of
 * the shared machine (another tenant's burst, thermal state) lands on both sides alike. Each side
 * gets one unmeasured warm-up run first (JIT, caches, key unwrap, connection pools). The verdict
 * uses medians over rounds.
 */
export async function sideBySide(
  name: string,
  ours: LoadTarget & { pid?: number | undefined },
  theirs: LoadTarget & { pid?: number | undefined },
  o: SideBySideOptions,
): Promise<SideBySideResult> {
  const oursLoad = { connections: o.connections, durationS: o.durationS, serverPid: ours.pid };
  const theirsLoad = { connections: o.connections, durationS: o.durationS, serverPid: theirs.pid };
  o.log(`${name}: warm-up ${o.warmupS}s each`);
  await runLoad(ours, { connections: o.connections, durationS: o.warmupS });
  await runLoad(theirs, { connections: o.connections, durationS: o.warmupS });
  const rounds: SideBySideResult['rounds'] = [];
  for (let i = 0; i < o.rounds; i++) {
    const order = i % 2 === 0 ? 'ours-first' : 'theirs-first';
    let a: LoadResult;
    let b: LoadResult;
    if (order === 'ours-first') {
      a = await runLoad(ours, oursLoad);
      b = await runLoad(theirs, theirsLoad);
    } else {
      b = await runLoad(theirs, theirsLoad);
      a = await runLoad(ours, oursLoad);
    }
    rounds.push({ ours: a, theirs: b, order });
    o.log(
      `${name}: round ${i + 1}/${o.rounds} ours ${a.rps}/s p99 ${a.p99Ms} ms cpu ${a.serverCpuShare} wait ${a.serverWaitShare} (${a.okPerCpuS}/cpu-s, non-2xx ${a.non2xx}) | theirs ${b.rps}/s p99 ${b.p99Ms} ms cpu ${b.serverCpuShare} wait ${b.serverWaitShare} (${b.okPerCpuS}/cpu-s, non-2xx ${b.non2xx})`,
    );
  }
  const oursS = summarize(rounds.map((r) => r.ours));
  const theirsS = summarize(rounds.map((r) => r.theirs));
  return {
    connections: o.connections,
    durationS: o.durationS,
    rounds,
    ours: oursS,
    theirs: theirsS,
    ratio: round(oursS.rps / theirsS.rps),
    p99Ratio: round(theirsS.p99Ms / oursS.p99Ms),
    cpuRatio: round(oursS.perCpuS / theirsS.perCpuS),
  };
}
