import { jvmCpuSecondsOf, processCpuSeconds } from './cpu.ts';
import { dbPidsOf, type LoadResult, type LoadTarget, runLoad, type SideProcesses } from './load.ts';
import { median, round } from './stats.ts';

export interface SideBySideOptions {
  connections: number;
  durationS: number;
  warmupS: number;
  rounds: number;
  log: (line: string) => void;
}

/** One server under test: the first side of a comparison is ours, the others are peers. */
export interface Side {
  name: string;
  target: LoadTarget;
  procs: SideProcesses;
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
  /** Median share of a core the side (server + database) got during the runs. */
  cpuShare: number;
  /** Median 2xx per CPU-second: of the server process alone, and of server + database. */
  perCpuS: number;
  perCpuSWithDb: number;
  /** Median share of the side's CPU spent by its database. */
  dbShareOfCpu: number;
  /** Median "starved share": how much of the run other processes took from the side's core (load.ts `serverWaitShare`). */
  waitShare: number;
  /** Largest RSS seen under load, MB: server process, database. */
  serverRssMaxMb: number;
  dbRssMaxMb: number;
}

export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** Paired ratios ours/peer, one per round (both sides ran in that round, back to back). */
export interface PeerRatios {
  peer: string;
  /** 2xx per second (raw throughput). */
  rps: Spread;
  /** 2xx per CPU-second of the server process alone. */
  perCpu: Spread;
  /** 2xx per CPU-second of server + database. */
  perCpuWithDb: Spread;
  /** p99 latency, theirs / ours (> 1: our tail is shorter). */
  p99: Spread;
}

export interface PassResult {
  rounds: { order: string[]; results: Record<string, LoadResult> }[];
  summaries: Record<string, SideSummary>;
  ratios: PeerRatios[];
}

/** Several passes of the same comparison: the verdict is the median of the passes' medians, with the min and max of every round. */
export interface ComparisonResult {
  name: string;
  sides: string[];
  connections: number;
  durationS: number;
  roundsPerPass: number;
  passes: PassResult[];
  /** Per side, medians over every round of every pass. */
  summaries: Record<string, SideSummary>;
  verdict: { peer: string; rps: Spread; perCpu: Spread; perCpuWithDb: Spread; p99: Spread }[];
  note?: string;
}

const MB = 1024 * 1024;

function summarize(runs: LoadResult[]): SideSummary {
  const total = (k: 'ok' | 'non2xx' | 'throttled' | 'errors') => runs.reduce((a, r) => a + r[k], 0);
  const med = (f: (r: LoadResult) => number) => round(median(runs.map(f)));
  return {
    rps: med((r) => r.rps),
    p50Ms: med((r) => r.p50Ms),
    p99Ms: med((r) => r.p99Ms),
    ok: total('ok'),
    non2xx: total('non2xx'),
    throttled: total('throttled'),
    errors: total('errors'),
    peakRps: Math.max(...runs.map((r) => r.rps)),
    cpuShare: med((r) => r.serverCpuShare),
    perCpuS: med((r) => r.okPerCpuS),
    perCpuSWithDb: med((r) => r.okPerCpuSWithDb),
    dbShareOfCpu: med((r) => r.dbCpuS / (r.serverCpuS + r.dbCpuS)),
    waitShare: med((r) => r.serverWaitShare),
    serverRssMaxMb: round(Math.max(...runs.map((r) => r.serverRssMax)) / MB),
    dbRssMaxMb: round(Math.max(0, ...runs.map((r) => r.dbRssMax || 0)) / MB),
  };
}

export function spread(values: readonly number[]): Spread {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return { min: Number.NaN, median: Number.NaN, max: Number.NaN };
  return { min: round(Math.min(...finite)), median: round(median(finite)), max: round(Math.max(...finite)) };
}

function pairedRatios(rounds: PassResult['rounds'], ours: string, peer: string): PeerRatios {
  const r = (f: (x: LoadResult) => number, invert = false) =>
    spread(rounds.map((x) => (invert ? f(x.results[peer]!) / f(x.results[ours]!) : f(x.results[ours]!) / f(x.results[peer]!))));
  return {
    peer,
    rps: r((x) => x.rps),
    perCpu: r((x) => x.okPerCpuS),
    perCpuWithDb: r((x) => x.okPerCpuSWithDb),
    p99: r((x) => x.p99Ms, true),
  };
}

/**
 * A side is warm once its database's JIT compiler threads took at most this share of the side's
 * CPU (server + database) over one warm-up run. A DynamoDB Local that has not compiled the paths a
 * flow takes spends much of its CPU compiling them, for a minute or more of load: measured then, it
 * reads as a costlier database (docs/benchmarks.md "Password grant: the database's JIT"; in section
 * 9 the peer's DynamoDB Local, started for it, tripled its refreshes per CPU-second over the rounds).
 */
export const JIT_QUIET_SHARE = 0.03;
/** At most this many warm-up runs per side: a side that never gets quiet is measured anyway, and the log says so. */
export const MAX_WARMUP_RUNS = 15;

/** Whether a warm-up run left the side warm: its database compiler's share of the side's CPU (0 when its database is no JVM). */
export function jitQuiet(compilerS: number, sideCpuS: number): boolean {
  return !(compilerS > JIT_QUIET_SHARE * sideCpuS);
}

/**
 * Warm-up: unmeasured runs per side (JIT, caches, key unwrap, connection pools), one, or more until
 * the side's database JIT is quiet (`jitQuiet`), so every side is measured warm, whatever its
 * database served before this comparison.
 */
export async function warmUp(name: string, sides: readonly Side[], o: SideBySideOptions): Promise<void> {
  o.log(`${name}: warm-up ${o.warmupS}s each, more while a database JIT is compiling`);
  for (const s of sides) {
    const db = dbPidsOf(s.procs);
    const sideCpu = () => (s.procs.pid ? processCpuSeconds(s.procs.pid) : 0) + jvmCpuSecondsOf(db).all;
    for (let run = 1; ; run++) {
      const [cpu0, jit0] = [sideCpu(), jvmCpuSecondsOf(db).compiler];
      await runLoad(s.target, { connections: o.connections, durationS: o.warmupS });
      const [cpu, jit] = [sideCpu() - cpu0, jvmCpuSecondsOf(db).compiler - jit0];
      const quiet = jitQuiet(jit, cpu);
      if (quiet && run === 1) break;
      if (quiet || run >= MAX_WARMUP_RUNS) {
        o.log(
          `${name}: ${s.name} warmed ${run} runs; its database's JIT took ${round((jit / cpu) * 100)}% of its CPU in the last${quiet ? '' : ' (not quiet: measured anyway)'}`,
        );
        break;
      }
    }
  }
}

/**
 * One pass: `rounds` rounds, each running every side once with the same load generator,
 * connections and duration, back to back. The order rotates every round (ours, a, b; a, b, ours;
 * ...), so a drift of the shared machine (another tenant's burst) lands on every side alike, and
 * the ratios are paired within a round. The first side is ours.
 */
export async function comparePass(name: string, sides: readonly Side[], o: SideBySideOptions, heapRound = -1): Promise<PassResult> {
  const rounds: PassResult['rounds'] = [];
  for (let i = 0; i < o.rounds; i++) {
    const order = sides.map((_, k) => sides[(k + i) % sides.length]!);
    const results: Record<string, LoadResult> = {};
    for (const s of order) {
      const procs = i === heapRound ? s.procs : { ...s.procs, heap: undefined };
      results[s.name] = await runLoad(s.target, { connections: o.connections, durationS: o.durationS, side: procs });
    }
    rounds.push({ order: order.map((s) => s.name), results });
    o.log(
      `${name}: round ${i + 1}/${o.rounds} ` +
        sides
          .map((s) => {
            const r = results[s.name]!;
            return `${s.name} ${r.rps}/s p99 ${r.p99Ms} ms cpu ${r.serverCpuShare} (db ${r.dbCpuS} s) wait ${r.serverWaitShare} ${r.okPerCpuS}/cpu-s ${r.okPerCpuSWithDb}/cpu-s+db non-2xx ${r.non2xx}`;
          })
          .join(' | '),
    );
  }
  const summaries = Object.fromEntries(sides.map((s) => [s.name, summarize(rounds.map((r) => r.results[s.name]!))]));
  return { rounds, summaries, ratios: sides.slice(1).map((p) => pairedRatios(rounds, sides[0]!.name, p.name)) };
}

/** The passes of one comparison combined: median of the passes' median ratios; min and max over every round. */
export function combinePasses(
  name: string,
  sides: readonly Side[],
  o: SideBySideOptions,
  passes: PassResult[],
  note?: string,
): ComparisonResult {
  const allRounds = passes.flatMap((p) => p.rounds);
  const summaries = Object.fromEntries(sides.map((s) => [s.name, summarize(allRounds.map((r) => r.results[s.name]!))]));
  const verdict = sides.slice(1).map((p) => {
    const perRound = pairedRatios(allRounds, sides[0]!.name, p.name);
    const mom = (k: 'rps' | 'perCpu' | 'perCpuWithDb' | 'p99'): Spread => ({
      min: perRound[k].min,
      median: round(median(passes.map((x) => x.ratios.find((r) => r.peer === p.name)![k].median))),
      max: perRound[k].max,
    });
    return { peer: p.name, rps: mom('rps'), perCpu: mom('perCpu'), perCpuWithDb: mom('perCpuWithDb'), p99: mom('p99') };
  });
  return {
    name,
    sides: sides.map((s) => s.name),
    connections: o.connections,
    durationS: o.durationS,
    roundsPerPass: o.rounds,
    passes,
    summaries,
    verdict,
    ...(note ? { note } : {}),
  };
}
