import { jvmCpuSecondsOf } from './cpu.ts';
import { dbPidsOf } from './load.ts';
import { type OpenLoopResult, runOpenLoop } from './open-loop.ts';
import type { LoopReport } from './proc.ts';
import { type Side, type Spread, spread } from './side-by-side.ts';
import { median, round } from './stats.ts';

/** One open-loop run of one side, with what its server and database did meanwhile. */
export interface OpenLoopRun extends OpenLoopResult {
  /** The server's event-loop delay and GC pauses over the run (bench/servers/announce.ts). */
  loop?: LoopReport;
  /** CPU seconds of the side's database over the run: in all, and of its garbage collector. */
  dbCpuS: number;
  dbGcCpuS: number;
}

/** One side at one rate: medians over every round of every pass, the worst of each where said. */
export interface OpenLoopSideSummary {
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  /** The largest latency of any run. */
  maxMs: number;
  /** p99 over the rounds: min, median, max. */
  p99: Spread;
  sentRps: number;
  okRps: number;
  /** Summed over the runs: non-2xx answers and connection errors. */
  errors: number;
  /** The most requests in flight in any run. */
  maxInFlight: number;
  sendLagP99Ms: number;
  /** The server's event-loop delay: p99 (median of the runs) and the largest of any run, ms. */
  loopDelayP99Ms: number | null;
  loopDelayMaxMs: number | null;
  /** The longest GC pause of any run, and GC time per second of run (median), ms. */
  gcMaxMs: number | null;
  gcMsPerS: number | null;
  /** The database's share of a core over the run, and its collector's (ms per second of run), medians. */
  dbCpuShare: number;
  dbGcMsPerS: number;
}

/** Theirs ÷ ours (> 1: our tail is shorter): the median of the passes' medians, with min and max over every paired round. */
export interface OpenLoopRatio {
  peer: string;
  p99: Spread;
  p999: Spread;
  /** Each pass's median p99 ratio. */
  perPass: number[];
}

export interface OpenLoopRate {
  share: number;
  rate: number;
  sides: Record<string, OpenLoopSideSummary>;
  ratios: OpenLoopRatio[];
  passes: { order: string[]; results: Record<string, OpenLoopRun> }[][];
}

export interface OpenLoopRoundsOptions {
  passes: number;
  rounds: number;
  durationS: number;
  /** Unmeasured open-loop seconds per side first: the load generator's own first requests (new connections, its JIT) are no server's tail. */
  warmupS: number;
  log: (line: string) => void;
}

/**
 * Open loop at one rate in the throughput runs' protocol (side-by-side.ts): `passes` passes of
 * `rounds` rounds, every side once per round, the order rotating each round, ratios paired
 * within a round. One run per side cannot say which tail is shorter: a tail moves tenfold from one
 * run to the next (docs/benchmarks.md "The open-loop stall").
 */
export async function openLoopRounds(
  name: string,
  sides: readonly Side[],
  rate: number,
  share: number,
  ask: (side: Side) => Promise<LoopReport | undefined>,
  o: OpenLoopRoundsOptions,
): Promise<OpenLoopRate> {
  for (const s of sides) await runOpenLoop(s.target, rate, o.warmupS);
  const passes: OpenLoopRate['passes'] = [];
  for (let p = 0; p < o.passes; p++) {
    const rounds: OpenLoopRate['passes'][number] = [];
    for (let i = 0; i < o.rounds; i++) {
      const order = sides.map((_, k) => sides[(k + i) % sides.length]!);
      const results: Record<string, OpenLoopRun> = {};
      for (const s of order) {
        const db = dbPidsOf(s.procs);
        await ask(s); // starts the server's counts anew
        const db0 = jvmCpuSecondsOf(db);
        const r = await runOpenLoop(s.target, rate, o.durationS);
        const db1 = jvmCpuSecondsOf(db);
        const loop = await ask(s);
        results[s.name] = { ...r, ...(loop ? { loop } : {}), dbCpuS: db1.all - db0.all, dbGcCpuS: db1.gc - db0.gc };
      }
      rounds.push({ order: order.map((s) => s.name), results });
      o.log(
        `${name} ${rate}/s pass ${p + 1} round ${i + 1}: ` +
          sides
            .map((s) => {
              const r = results[s.name]!;
              return `${s.name} p99 ${r.p99Ms} p99.9 ${r.p999Ms} ms, loop delay max ${r.loop?.delayMaxMs ?? '?'} ms, gc max ${r.loop?.gcMaxMs ?? '?'} ms, errors ${r.errors + r.non2xx}`;
            })
            .join(' | '),
      );
    }
    passes.push(rounds);
  }
  const all = passes.flat();
  const summaries = Object.fromEntries(sides.map((s) => [s.name, summarize(all.map((r) => r.results[s.name]!))]));
  const ours = sides[0]!.name;
  const ratios = sides.slice(1).map((peer): OpenLoopRatio => {
    const ratio = (rounds: typeof all, k: 'p99Ms' | 'p999Ms') => rounds.map((r) => r.results[peer.name]![k] / r.results[ours]![k]);
    const perPass = passes.map((rounds) => round(median(ratio(rounds, 'p99Ms'))));
    const mom = (k: 'p99Ms' | 'p999Ms'): Spread => {
      const each = spread(ratio(all, k));
      return { ...each, median: round(median(passes.map((rounds) => median(ratio(rounds, k))))) };
    };
    return { peer: peer.name, p99: mom('p99Ms'), p999: mom('p999Ms'), perPass };
  });
  return { share, rate, sides: summaries, ratios, passes };
}

function summarize(runs: OpenLoopRun[]): OpenLoopSideSummary {
  const med = (f: (r: OpenLoopRun) => number) => round(median(runs.map(f)));
  const loops = runs.map((r) => r.loop).filter((l): l is LoopReport => !!l);
  const loopMed = (f: (l: LoopReport) => number) => (loops.length ? round(median(loops.map(f))) : null);
  const loopMax = (f: (l: LoopReport) => number) => (loops.length ? round(Math.max(...loops.map(f))) : null);
  const withLoop = runs.filter((r) => r.loop);
  return {
    p50Ms: med((r) => r.p50Ms),
    p99Ms: med((r) => r.p99Ms),
    p999Ms: med((r) => r.p999Ms),
    maxMs: round(Math.max(...runs.map((r) => r.maxMs))),
    p99: spread(runs.map((r) => r.p99Ms)),
    sentRps: med((r) => r.sentRps),
    okRps: med((r) => r.okRps),
    errors: runs.reduce((a, r) => a + r.errors + r.non2xx, 0),
    maxInFlight: Math.max(...runs.map((r) => r.maxInFlight)),
    sendLagP99Ms: med((r) => r.sendLagP99Ms),
    loopDelayP99Ms: loopMed((l) => l.delayP99Ms),
    loopDelayMaxMs: loopMax((l) => l.delayMaxMs),
    gcMaxMs: loopMax((l) => l.gcMaxMs),
    gcMsPerS: withLoop.length ? round(median(withLoop.map((r) => r.loop!.gcTotalMs / r.durationS))) : null,
    dbCpuShare: med((r) => r.dbCpuS / r.durationS),
    dbGcMsPerS: med((r) => (r.dbGcCpuS * 1000) / r.durationS),
  };
}
