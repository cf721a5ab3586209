import { join, resolve } from 'node:path';
import type { EventSpec } from '../lib/api-event.ts';
import { LOAD_CORE, runNode } from '../lib/proc.ts';
import { round } from '../lib/stats.ts';

const ROOT = resolve(import.meta.dirname, '../..');

export interface LeakSample {
  tokens: number;
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
}

export interface LeakResult {
  tokens: number;
  failed: number;
  samples: LeakSample[];
  /** Heap after GC: growth from the first warm checkpoint to the last, MB, and per 10,000 tokens. */
  heapGrowthMb: number;
  heapGrowthPer10kMb: number;
  /** Largest RSS seen during the run (sampled every 1,000 tokens), MB. */
  peakRssMb: number;
  seconds: number;
}

/**
 * The token function's memory after `tokens` tokens in one fresh process (bench/probes/token-memory.ts),
 * GC'd heap at checkpoints. Growth is measured from the 10% checkpoint (caches filled, JIT done).
 */
export async function benchLeak(o: {
  env: Record<string, string>;
  event: EventSpec;
  tokens: number;
  log: (line: string) => void;
}): Promise<LeakResult> {
  const checkpoints = [0.01, 0.1, 0.25, 0.5, 0.75, 1].map((f) => Math.round(o.tokens * f));
  const { stdout } = await runNode(
    [
      '--expose-gc',
      '--import',
      'tsx',
      join(ROOT, 'bench/probes/token-memory.ts'),
      JSON.stringify({ env: o.env, event: o.event, tokens: o.tokens, checkpoints }),
    ],
    {
      core: LOAD_CORE,
      timeoutMs: 600_000,
    },
  );
  const line = stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('BENCH_RESULT '));
  if (!line) throw new Error(`no result line: ${stdout.slice(-300)}`);
  const r = JSON.parse(line.slice(13)) as { samples: LeakSample[]; failed: number; peakRssMb: number; seconds: number };
  const samples = r.samples.map((s) => ({
    tokens: s.tokens,
    rssMb: round(s.rssMb),
    heapUsedMb: round(s.heapUsedMb),
    heapTotalMb: round(s.heapTotalMb),
    externalMb: round(s.externalMb),
  }));
  const from = r.samples.find((s) => s.tokens >= o.tokens * 0.1)!;
  const to = r.samples.at(-1)!;
  const growth = to.heapUsedMb - from.heapUsedMb;
  const result = {
    tokens: o.tokens,
    failed: r.failed,
    samples,
    heapGrowthMb: round(growth),
    heapGrowthPer10kMb: round((growth / Math.max(1, to.tokens - from.tokens)) * 10_000),
    peakRssMb: round(r.peakRssMb),
    seconds: round(r.seconds),
  };
  o.log(
    `leak check: ${o.tokens} tokens in ${result.seconds} s, heap ${round(from.heapUsedMb)} -> ${round(to.heapUsedMb)} MB after GC, peak RSS ${result.peakRssMb} MB, ${r.failed} failed`,
  );
  return result;
}
