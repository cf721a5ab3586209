/**
 * The tail budget (docs/benchmarks.md "Open loop"): open-loop p99 at 50% and 80% of the slower
 * side's peak, ours ≤ oidc-provider's, judged on the median of the passes' median ratios (theirs ÷
 * ours), and **not callable** when a side fell behind the rate or the load generator lagged.
 * Numbers are given, nothing is timed.
 */
import { describe, expect, it } from 'vitest';
import type { OpenLoopRate, OpenLoopSideSummary } from '../../bench/lib/open-loop-rounds.ts';
import { renderMarkdown } from '../../bench/lib/report.ts';
import { checkTargets } from '../../bench/lib/targets.ts';
import type { BenchResults } from '../../bench/lib/types.ts';
import type { OpenLoopCase } from '../../bench/sections/http-compare.ts';
import { sectionNineResults } from '../support/service/bench-results.ts';

const PEER = 'oidc-provider (memory)';

const side = (p99Ms: number, okRps: number, sendLagP99Ms = 1): OpenLoopSideSummary => ({
  p50Ms: 0.4,
  p99Ms,
  p999Ms: p99Ms * 1.5,
  maxMs: p99Ms * 2,
  p99: { min: p99Ms / 2, median: p99Ms, max: p99Ms * 2 },
  sentRps: okRps,
  okRps,
  errors: 0,
  maxInFlight: 40,
  sendLagP99Ms,
  loopDelayP99Ms: 10,
  loopDelayMaxMs: 20,
  gcMaxMs: 5,
  gcMsPerS: 3,
  dbCpuShare: 0.02,
  dbGcMsPerS: 0.1,
});

function rate(share: number, ours: OpenLoopSideSummary, theirs: OpenLoopSideSummary, perPass: number[]): OpenLoopRate {
  const sorted = [...perPass].sort((a, b) => a - b);
  return {
    share,
    rate: 1000,
    sides: { ours, [PEER]: theirs },
    ratios: [{ peer: PEER, p99: { min: sorted[0]!, median: sorted[1]!, max: sorted[2]! }, p999: { min: 1, median: 1, max: 1 }, perPass }],
    passes: [[], [], []],
  };
}

function results(openLoop: OpenLoopCase[]): BenchResults {
  const r = sectionNineResults(undefined as never);
  return {
    ...r,
    http: {
      token: undefined,
      introspection: undefined,
      openLoop,
      sweep: [],
      memory: { atRest: {}, underLoad: {}, afterLoad: {}, dbIdleCpuShare: {} },
    },
  } as unknown as BenchResults;
}

describe('tail-budget targets', () => {
  const token: OpenLoopCase = {
    case: 'token',
    peakRps: 2000,
    peakSide: PEER,
    rates: [rate(0.5, side(8, 1000), side(34, 1000), [2.8, 2.5, 3.1]), rate(0.8, side(40, 1000), side(30, 1000), [0.7, 0.8, 1.2])],
  };
  const introspection: OpenLoopCase = {
    case: 'introspection, uncached',
    peakRps: 2000,
    peakSide: 'ours',
    rates: [rate(0.5, side(10, 1000), side(20, 1000), [2, 2, 2]), rate(0.8, side(900, 950, 45), side(60, 1000), [0.05, 0.1, 0.2])],
  };

  it('judges ours ≤ the peer per case and rate on the median of the pass medians, and says when the run cannot call it', () => {
    const rows = checkTargets(results([token, introspection])).filter((t) => t.target.startsWith('Open-loop p99'));
    expect(rows.map((t) => [t.target, t.met])).toEqual([
      [`Open-loop p99 at 50% of the slower side's peak, tokens: ours ≤ ${PEER}`, true],
      [`Open-loop p99 at 50% of the slower side's peak, uncached introspection: ours ≤ ${PEER}`, true],
      [`Open-loop p99 at 80% of the slower side's peak, tokens: ours ≤ ${PEER}`, false],
      [`Open-loop p99 at 80% of the slower side's peak, uncached introspection: ours ≤ ${PEER}`, false],
    ]);
    expect(rows[0]!.measured).toContain('theirs ÷ ours 2.8× (rounds 2.5–3.1)');
    expect(rows[0]!.measured).toContain('p99 ours 8 ms vs 34 ms at 1000/s');
    expect(rows[0]!.note).not.toContain('not callable');
    expect(rows[2]!.note).toContain('the rounds straddle the target');
    // Ours fell behind the rate and the generator lagged: an overload, not a tail.
    expect(rows[3]!.note).toContain('**not callable**');
    expect(rows[3]!.note).toContain('fewer than 98% of the rate');
    expect(rows[3]!.note).toContain('send lag p99 was above 20 ms');
  });

  it('a run without open-loop results says n/a, never met', () => {
    const rows = checkTargets(results([])).filter((t) => t.target.startsWith('Open-loop p99'));
    expect(rows).toHaveLength(4);
    expect(rows.every((t) => t.met === null && t.measured === 'n/a')).toBe(true);
  });

  it('the report prints each rate per side and the paired ratios', () => {
    const r = results([token]);
    r.targets = checkTargets(r);
    const md = renderMarkdown(r);
    expect(md).toContain('| 1,000/s (50%) | ours | 0.4 | 8 (4–16) |');
    expect(md).toContain(`| 1,000/s (50%) | ${PEER} | **2.8×** (2.5–3.1) | 1× (1–1) | 2.8, 2.5, 3.1 |`);
  });
});
