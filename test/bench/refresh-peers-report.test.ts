/**
 * Section 9's refresh comparison with its third peer, oidc-provider on DynamoDB Local:
 * the report's rows and ratio line, the target judged like for like against that peer with the
 * in-memory and Redis ratios printed beside it (docs/benchmarks.md "Refresh: the measure"), and
 * what the report says when that peer could not start. Numbers are given, nothing is timed.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../bench/lib/report.ts';
import type { ComparisonResult, SideSummary, Spread } from '../../bench/lib/side-by-side.ts';
import { checkTargets, DYNAMODB_PEER, REFRESH_TARGET } from '../../bench/lib/targets.ts';
import type { BenchResults } from '../../bench/lib/types.ts';
import { sectionNineResults } from '../support/service/bench-results.ts';

const MEMORY = 'oidc-provider (memory)';
const REDIS = 'oidc-provider (Redis)';

const summary = (perCpuSWithDb: number, dbShareOfCpu: number): SideSummary => ({
  rps: perCpuSWithDb,
  p50Ms: 4,
  p99Ms: 20,
  ok: perCpuSWithDb * 10,
  non2xx: 0,
  throttled: 0,
  errors: 0,
  peakRps: perCpuSWithDb,
  cpuShare: 1,
  perCpuS: Math.round(perCpuSWithDb / (1 - dbShareOfCpu)),
  perCpuSWithDb,
  dbShareOfCpu,
  waitShare: 0,
  serverRssMaxMb: 100,
  dbRssMaxMb: 0,
});
const around = (median: number): Spread => ({ min: median - 0.05, median, max: median + 0.05 });

/** A refresh comparison of ours against `peers` (name → ours ÷ peer per CPU-second incl. the database), two passes. */
function refreshComparison(peers: Record<string, { ratio: number; perCpu: number; dbShare: number }>): ComparisonResult {
  const ratios = Object.entries(peers).map(([peer, p]) => ({
    peer,
    rps: around(p.ratio),
    perCpu: around(p.ratio),
    perCpuWithDb: around(p.ratio),
    p99: around(0.2),
  }));
  return {
    name: 'refresh grant',
    sides: ['ours', ...Object.keys(peers)],
    connections: 16,
    durationS: 2,
    roundsPerPass: 2,
    passes: [1, 2].map(() => ({ rounds: [], summaries: {}, ratios })),
    summaries: {
      ours: summary(185, 0.61),
      ...Object.fromEntries(Object.entries(peers).map(([name, p]) => [name, summary(p.perCpu, p.dbShare)])),
    },
    verdict: ratios,
  };
}

const results = (refresh: ComparisonResult, dynamodbPeer: BenchResults['meta']['dynamodbPeer']) =>
  sectionNineResults({ missing: [], refresh, ddb: [], notes: [] }, dynamodbPeer);

describe('the refresh comparison with oidc-provider on DynamoDB Local', () => {
  const three = refreshComparison({
    [MEMORY]: { ratio: 0.06, perCpu: 2890, dbShare: 0 },
    [REDIS]: { ratio: 0.11, perCpu: 1718, dbShare: 0.18 },
    [DYNAMODB_PEER]: { ratio: 1.2, perCpu: 154, dbShare: 0.7 },
  });

  it('renders the peer as a row of the refresh table and a line of the ratio table', () => {
    const md = renderMarkdown(results(three, { endpoint: 'http://127.0.0.1:8001' }));
    const section = md.slice(md.indexOf('### Refresh grant'), md.indexOf('## 10.') === -1 ? undefined : md.indexOf('## 10.'));
    expect(section).toContain(`| ${DYNAMODB_PEER} | 154 | 4 | 20 | 1540 | 0 | 0 | 0 | 1 | 0.7 | 0 | 513 | 154 |`);
    expect(section).toContain(
      `| ${DYNAMODB_PEER} | **1.2× (1.15–1.25)** | 1.2× (1.15–1.25) | 1.2× (1.15–1.25) | 0.2× (0.15–0.25) | 1.2, 1.2 |`,
    );
    expect(section).toContain(`| ${MEMORY} | **0.06× (0.01–0.11)** |`);
    expect(section).toContain(
      `The like-for-like ratio ours ÷ ${DYNAMODB_PEER} (each side's DynamoDB Local counted on its side; the refresh target's measure): 1.2× (rounds 1.15–1.25) per CPU-second incl. the database, 1.2× (rounds 1.15–1.25) raw throughput.`,
    );
    expect(md).not.toContain('NOT MEASURED');
  });

  it('judges the target like for like and prints the in-memory and Redis ratios beside it', () => {
    const [target] = checkTargets(results(three, { endpoint: 'http://127.0.0.1:8001' })).filter((t) => t.target === REFRESH_TARGET);
    // 1.2× like for like: met, with 0.06× against the Map and 0.11× against Redis in plain sight.
    expect(target?.met).toBe(true);
    expect(target?.measured).toMatch(/^1\.2× \(rounds 1\.15–1\.25\) per CPU-second incl\. the database/);
    expect(target?.note).toContain(
      'beside the verdict, not its measure: ours ÷ oidc-provider (memory, its development-only store) 0.06× (rounds 0.01–0.11) per CPU-second incl. the database; ours ÷ oidc-provider (Redis) 0.11× (rounds 0.06–0.16) per CPU-second incl. the database',
    );
  });

  it('is not met when ours is below the peer on DynamoDB Local, however it fares against the others', () => {
    const slower = refreshComparison({
      [MEMORY]: { ratio: 1.5, perCpu: 100, dbShare: 0 },
      [REDIS]: { ratio: 1.4, perCpu: 110, dbShare: 0.18 },
      [DYNAMODB_PEER]: { ratio: 0.9, perCpu: 200, dbShare: 0.7 },
    });
    const [target] = checkTargets(results(slower, { endpoint: 'http://127.0.0.1:8001' })).filter((t) => t.target === REFRESH_TARGET);
    expect(target?.met).toBe(false);
    expect(target?.measured).toMatch(/^0\.9× /);
  });

  it('says the peer was not measured, and why, when it could not start', () => {
    const two = refreshComparison({
      [MEMORY]: { ratio: 0.06, perCpu: 2890, dbShare: 0 },
      [REDIS]: { ratio: 0.11, perCpu: 1718, dbShare: 0.18 },
    });
    const why = 'oidc-provider on DynamoDB Local could not start (no java)';
    const r = results(two, { missing: why });
    const md = renderMarkdown(r);
    expect(md).toContain(`**OIDC-PROVIDER (DYNAMODB LOCAL) NOT MEASURED: ${why}.**`);
    expect(md).not.toContain(`| ${DYNAMODB_PEER} |`);
    const [target] = checkTargets(r).filter((t) => t.target === REFRESH_TARGET);
    // No verdict without the peer it is judged against; the other ratios never stand in for it.
    expect(target?.met).toBeNull();
    expect(target?.measured).toBe(`${DYNAMODB_PEER} not measured: ${why}`);
    expect(md).toContain(`The like-for-like ratio (${DYNAMODB_PEER}) not measured: ${why}.`);
  });
});
