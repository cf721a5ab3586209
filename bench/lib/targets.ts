import type { BenchResults } from './types.ts';

export interface TargetCheck {
  target: string;
  measured: string;
  /** null: not measured in this run (a section failed or its endpoint does not exist yet). */
  met: boolean | null;
  note?: string;
}

/** Why the HTTP verdicts use the CPU-normalized ratio (docs/benchmarks.md, "CPU accounting"). */
const VERDICT_NOTE = 'verdict on requests per CPU-second of the server process: on a dedicated core that is the throughput, and it does not depend on how much of its core the shared machine left each server';

const fmt = (n: number | null | undefined, digits = 2) => (n === null || n === undefined || Number.isNaN(n) ? 'n/a' : Number(n.toFixed(digits)).toString());

/** The issue's targets (issue 5), checked against this run. */
export function checkTargets(r: BenchResults): TargetCheck[] {
  const out: TargetCheck[] = [];
  const tok = r.token && 'ratio' in r.token ? r.token : undefined;
  out.push({
    target: 'Token issuance over HTTP ≥ 1.0× oidc-provider',
    measured: tok ? `${fmt(tok.cpuRatio)}× tokens per server CPU-second (${tok.ours.perCpuS} vs ${tok.theirs.perCpuS}); ${fmt(tok.ratio)}× raw throughput (${tok.ours.rps} vs ${tok.theirs.rps}/s)` : 'n/a',
    met: tok ? tok.cpuRatio >= 1 : null,
    note: VERDICT_NOTE,
  });
  const lim = r.limits && 'tokenHandler' in r.limits ? r.limits : undefined;
  out.push({
    target: 'Token handler in-process ≥ 10,000 tokens/s on one core',
    measured: lim ? `${lim.tokenHandler.perCpuSec}/s per CPU-second (${lim.tokenHandler.perSec}/s wall clock on a shared core)` : 'n/a',
    met: lim ? lim.tokenHandler.perCpuSec >= 10_000 : null,
  });
  const intro = r.introspection && 'ratio' in r.introspection ? r.introspection : undefined;
  out.push({
    target: '/tokeninfo ≥ 1.0× oidc-provider introspection',
    measured: intro ? `${fmt(intro.cpuRatio)}× per server CPU-second (${intro.ours.perCpuS} vs ${intro.theirs.perCpuS}); ${fmt(intro.ratio)}× raw throughput (${intro.ours.rps} vs ${intro.theirs.rps}/s)` : 'n/a',
    met: intro ? intro.cpuRatio >= 1 : null,
    note: VERDICT_NOTE,
  });
  const tokenOp = r.ddb?.operations.find((o) => o.operation === 'POST /token (client_credentials)');
  out.push({
    target: '≤ 1 DynamoDB read per client_credentials token, cold',
    measured: tokenOp?.cold ? `${tokenOp.cold.reads} reads (${Object.entries(tokenOp.cold.byCommand).map(([k, v]) => `${v} ${k.replace('Command', '')}`).join(', ')})` : 'n/a',
    met: tokenOp?.cold ? tokenOp.cold.reads <= 1 : null,
  });
  out.push({
    target: '< 0.05 DynamoDB reads per token, warm average',
    measured: lim ? `${fmt(lim.tokenRun.ddbReadsPerToken, 5)} (${lim.tokenRun.ddb.reads} reads in ${lim.tokenRun.tokens} tokens)` : 'n/a',
    met: lim ? lim.tokenRun.ddbReadsPerToken < 0.05 : null,
  });
  out.push({
    target: '0 KMS calls per token in envelope mode',
    measured: lim ? `${lim.tokenRun.kmsCalls} calls in ${lim.tokenRun.tokens} warm tokens${tokenOp?.cold ? `; cold container: ${tokenOp.cold.kmsCalls} (${Object.entries(tokenOp.cold.kms).map(([k, v]) => `${v} ${k}`).join(', ') || 'none'})` : ''}` : 'n/a',
    met: lim ? lim.tokenRun.kmsCalls === 0 : null,
    note: 'per token, warm; a cold container pays one Decrypt per signing key, which is by design (DESIGN.md §4)',
  });
  const lists = r.lists && 'sizes' in r.lists && r.lists.sizes.length > 1 ? r.lists : undefined;
  out.push({
    target: 'First-page list at 10,000 clients within 2× of 10 clients',
    measured: lists ? `${fmt(lists.firstPageGrowth)}× (${lists.sizes[0]!.firstPage.medianMs} → ${lists.sizes.at(-1)!.firstPage.medianMs} ms)` : 'n/a',
    met: lists ? lists.firstPageGrowth <= 2 : null,
  });
  const tb = r.coldStart?.token;
  out.push({ target: 'Token handler bundle < 300 KB', measured: tb ? `${fmt(tb.bytes / 1024, 1)} KB (gzip ${fmt(tb.gzipBytes / 1024, 1)} KB)` : 'n/a', met: tb ? tb.bytes < 300 * 1024 : null });
  out.push({ target: 'Token handler ready < 150 ms from a fresh process', measured: tb?.readyMs ? `${tb.readyMs} ms (median of ${tb.runs})` : 'n/a', met: tb?.readyMs ? tb.readyMs < 150 : null });
  return out;
}
