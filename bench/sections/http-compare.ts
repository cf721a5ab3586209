/**
 * Sections 1 and 2: ours against oidc-provider over HTTP (docs/benchmarks.md). Token issuance and
 * three introspection cases, each run in `passes` passes of alternating rounds (interleaved: pass
 * 1 of every case, then pass 2, ...), then open-loop latency at two fixed rates (in the same passes
 * and rounds), a connection
 * sweep, and the servers' memory at rest and under load.
 */
import type { ChildProcess } from 'node:child_process';
import { basicAuth, FORM } from '../lib/api-event.ts';
import { cpuSecondsOf, databaseProcesses, rssBytes } from '../lib/cpu.ts';
import { type LoadResult, type LoadTarget, type ProcessMemory, runLoad } from '../lib/load.ts';
import { type OpenLoopRate, openLoopRounds } from '../lib/open-loop-rounds.ts';
import { askMemory, askServer } from '../lib/proc.ts';
import {
  type ComparisonResult,
  combinePasses,
  comparePass,
  type PassResult,
  type Side,
  type SideBySideOptions,
  warmUp,
} from '../lib/side-by-side.ts';
import { round } from '../lib/stats.ts';
import { expectActive, fetchTokens, revokeTokens } from '../lib/token-pool.ts';

export interface ServerUnderTest {
  name: string;
  url: string;
  child: ChildProcess;
  clientId: string;
  clientSecret: string;
  /** Token request parameters for the token benchmark, and for the tokens to introspect. */
  tokenParams: Record<string, string>;
  introspectParams: Record<string, string>;
  tokenPath: string;
  introspectPath: string;
  revokePath: string;
  /** Database processes that are not the server's children (redis-server). */
  dbPids?: number[];
}

export interface HttpOptions extends SideBySideOptions {
  passes: number;
  /** Distinct tokens in the uncached introspection pool (larger than every cache) and in the cached and revoked pools. */
  poolLarge: number;
  poolSmall: number;
  openLoopS: number;
  openLoopWarmupS: number;
  openLoopShares: number[];
  sweepS: number;
  sweepConnections: number[];
  token: boolean;
  introspection: boolean;
}

export interface MemoryRow {
  rssMb: number;
  heapUsedMb: number | null;
  heapTotalMb: number | null;
  /** The side's database process(es): DynamoDB Local (JVM), redis-server; null for in-memory storage. */
  dbRssMb: number | null;
}

export interface OpenLoopCase {
  case: string;
  /** The slower side's median closed-loop throughput the rates are shares of. */
  peakRps: number;
  peakSide: string;
  /** Per rate, in rounds and passes (open-loop-rounds.ts). */
  rates: OpenLoopRate[];
}

export interface SweepCase {
  case: string;
  rows: { connections: number; sides: Record<string, LoadResult> }[];
}

type Failed = { error: string };

export interface HttpResults {
  token: ComparisonResult | Failed | undefined;
  introspection: { uncached: ComparisonResult | Failed; cached: ComparisonResult | Failed; revoked: ComparisonResult | Failed } | undefined;
  openLoop: OpenLoopCase[];
  sweep: SweepCase[];
  memory: {
    atRest: Record<string, MemoryRow>;
    underLoad: Record<string, MemoryRow>;
    afterLoad: Record<string, MemoryRow>;
    dbIdleCpuShare: Record<string, number>;
  };
}

const MB = 1024 * 1024;
const mb = (b: number | undefined) => (b === undefined || !Number.isFinite(b) ? null : round(b / MB));

async function memoryRow(s: ServerUnderTest): Promise<MemoryRow> {
  const pid = s.child.pid!;
  const heap = await askMemory(s.child);
  const db = [...databaseProcesses(pid), ...(s.dbPids ?? [])].reduce((a, d) => a + (rssBytes(d) || 0), 0);
  return {
    rssMb: mb(rssBytes(pid)) ?? 0,
    heapUsedMb: mb(heap?.heapUsed),
    heapTotalMb: mb(heap?.heapTotal),
    dbRssMb: db > 0 ? mb(db) : null,
  };
}

function underLoadRow(passes: PassResult[], side: string): MemoryRow | undefined {
  const runs = passes.flatMap((p) => p.rounds.map((r) => r.results[side]!)).filter(Boolean);
  if (!runs.length) return undefined;
  const heap = runs.map((r) => r.heapMid).find((h): h is ProcessMemory => !!h);
  const dbMax = Math.max(0, ...runs.map((r) => r.dbRssMax || 0));
  return {
    rssMb: mb(Math.max(...runs.map((r) => r.serverRssMax))) ?? 0,
    heapUsedMb: mb(heap?.heapUsed),
    heapTotalMb: mb(heap?.heapTotal),
    dbRssMb: dbMax > 0 ? mb(dbMax) : null,
  };
}

const form = (t: string) => new URLSearchParams({ token: t }).toString();

export async function benchHttp(ours: ServerUnderTest, peers: ServerUnderTest[], o: HttpOptions): Promise<HttpResults> {
  const all = [ours, ...peers];
  const atRest: Record<string, MemoryRow> = {};
  for (const s of all) atRest[s.name] = await memoryRow(s);
  o.log(`memory at rest: ${JSON.stringify(atRest)}`);
  // What each side's database burns with no request at all (a JVM's background threads, redis's timers).
  const idleS = 3;
  const dbOf = (s: ServerUnderTest) => [...databaseProcesses(s.child.pid!), ...(s.dbPids ?? [])];
  const idle0 = all.map((s) => cpuSecondsOf(dbOf(s)));
  await new Promise((r) => setTimeout(r, idleS * 1000));
  const dbIdleCpuShare: Record<string, number> = Object.fromEntries(
    all.map((s, i) => [s.name, round((cpuSecondsOf(dbOf(s)) - idle0[i]!) / idleS)]),
  );
  o.log(`database CPU share at rest: ${JSON.stringify(dbIdleCpuShare)}`);
  const procs = (s: ServerUnderTest) => ({ pid: s.child.pid, dbPids: s.dbPids ?? [], heap: () => askMemory(s.child) });
  const auth = (s: ServerUnderTest) => basicAuth(s.clientId, s.clientSecret);

  // ---- the cases -----------------------------------------------------------------------------------
  interface Case {
    key: 'token' | 'uncached' | 'cached' | 'revoked';
    title: string;
    sides: Side[];
    note: string;
    passes: PassResult[];
    error?: string;
  }
  const cases: Case[] = [];
  // Tokens: oidc-provider's storage is not touched by a JWT client_credentials token, so the Redis
  // variant would measure the same work: the token case runs against the in-memory one only.
  if (o.token) {
    const peer = peers[0]!;
    cases.push({
      key: 'token',
      title: 'token',
      sides: [ours, peer].map((s) => ({
        name: s.name,
        procs: procs(s),
        target: {
          url: `${s.url}${s.tokenPath}`,
          method: 'POST',
          headers: { authorization: auth(s), 'content-type': FORM },
          body: new URLSearchParams({ grant_type: 'client_credentials', ...s.tokenParams }).toString(),
        },
      })),
      note: 'client_credentials, client_secret_basic, one ES256 JWT access token per request on both sides.',
      passes: [],
    });
  }
  if (o.introspection) {
    const target = (s: ServerUnderTest, tokens: string[]): LoadTarget => ({
      url: `${s.url}${s.introspectPath}`,
      method: 'POST',
      headers: { authorization: auth(s), 'content-type': FORM },
      bodies: tokens.map(form),
    });
    const pools = async (n: number, revoked: boolean) => {
      const out = new Map<string, string[]>();
      for (const s of all) {
        const t0 = performance.now();
        const tokens = await fetchTokens(s.url, s.clientId, s.clientSecret, s.introspectParams, n);
        if (revoked) await revokeTokens(s.url, s.revokePath, s.clientId, s.clientSecret, tokens);
        for (const t of [tokens[0]!, tokens.at(-1)!]) await expectActive(s.url, s.introspectPath, s.clientId, s.clientSecret, t, !revoked);
        out.set(s.name, tokens);
        o.log(`introspection: ${n} ${revoked ? 'revoked ' : ''}tokens from ${s.name} in ${Math.round(performance.now() - t0)} ms`);
      }
      return out;
    };
    const add = async (key: Case['key'], title: string, n: number, revoked: boolean, note: string) => {
      try {
        const p = await pools(n, revoked);
        cases.push({
          key,
          title,
          sides: all.map((s) => ({ name: s.name, procs: procs(s), target: target(s, p.get(s.name)!) })),
          note,
          passes: [],
        });
      } catch (err) {
        cases.push({ key, title, sides: [], note, passes: [], error: (err as Error).message });
        o.log(`introspection ${key}: FAILED ${(err as Error).message}`);
      }
    };
    await add(
      'uncached',
      'introspection, uncached',
      o.poolLarge,
      false,
      `${o.poolLarge.toLocaleString('en-US')} distinct live tokens per side, round-robin: more than any cache holds (ours remembers 10,000 verified tokens, dropping the oldest), so every request of ours verifies an ES256 signature (its JWT access token) and checks the token's binding against the revocations its container follows in memory (one DynamoDB Query a second, whatever the rate); oidc-provider verifies no signature: it looks each opaque token up in its storage (a Map, or one Redis GET).`,
    );
    await add(
      'cached',
      'introspection, cached',
      o.poolSmall,
      false,
      `${o.poolSmall} distinct live tokens per side, round-robin: ours answers from its verified-token cache (5 minutes) after the first sight of each token, with no signature check, and checks the binding against the revocations it follows in memory (one DynamoDB Query a second); oidc-provider looks each opaque token up in its storage (a Map, or one Redis GET).`,
    );
    await add(
      'revoked',
      'introspection, revoked tokens',
      o.poolSmall,
      true,
      `${o.poolSmall} tokens per side, each revoked (RFC 7009) before the runs; every answer is {"active": false}. Ours: after the cached signature check, the token's binding is found among the revocations its container follows in memory (one DynamoDB Query a second); oidc-provider: the token is gone from its storage (one lookup that finds nothing).`,
    );
  }

  // ---- passes, interleaved -----------------------------------------------------------------------------
  for (let p = 0; p < o.passes; p++) {
    for (const c of cases) {
      if (c.error) continue;
      try {
        if (p === 0) await warmUp(c.title, c.sides, o);
        c.passes.push(await comparePass(`${c.title} pass ${p + 1}/${o.passes}`, c.sides, o, p === 0 ? 0 : -1));
      } catch (err) {
        c.error = (err as Error).message;
        o.log(`${c.title}: FAILED ${c.error}`);
      }
    }
  }
  const combined = (key: Case['key']): ComparisonResult | Failed | undefined => {
    const c = cases.find((x) => x.key === key);
    if (!c) return undefined;
    if (c.error) return { error: c.error };
    return combinePasses(c.title, c.sides, o, c.passes, c.note);
  };

  // ---- open loop at fixed rates, and a connection sweep (tokens and uncached introspection) ----------------------
  const openLoop: OpenLoopCase[] = [];
  const sweep: SweepCase[] = [];
  for (const key of ['token', 'uncached'] as const) {
    const c = cases.find((x) => x.key === key);
    const res = combined(key);
    if (!c || !res || 'error' in res) continue;
    const slowest = c.sides.map((s) => ({ side: s.name, rps: res.summaries[s.name]!.rps })).sort((a, b) => a.rps - b.rps)[0]!;
    const ol: OpenLoopCase = { case: c.title, peakRps: slowest.rps, peakSide: slowest.side, rates: [] };
    const ask = (side: Side) => askServer(all.find((x) => x.name === side.name)!.child).then((r) => r?.loop);
    for (const share of o.openLoopShares) {
      const rate = Math.max(1, Math.round(slowest.rps * share));
      const at = await openLoopRounds(
        `${c.title} open loop (${share * 100}% of ${slowest.side}'s ${slowest.rps}/s)`,
        c.sides,
        rate,
        share,
        ask,
        {
          passes: o.passes,
          rounds: o.rounds,
          durationS: o.openLoopS,
          warmupS: o.openLoopWarmupS,
          log: o.log,
        },
      );
      o.log(
        `${c.title} open loop ${rate}/s: ${c.sides.map((s) => `${s.name} p99 ${at.sides[s.name]!.p99Ms} ms (${at.sides[s.name]!.p99.min}–${at.sides[s.name]!.p99.max})`).join(' | ')}; p99 theirs/ours ${at.ratios.map((r) => `${r.peer} ${r.p99.median}× (${r.p99.min}–${r.p99.max})`).join(', ')}`,
      );
      ol.rates.push(at);
    }
    openLoop.push(ol);
    const sw: SweepCase = { case: c.title, rows: [] };
    for (const connections of o.sweepConnections) {
      const sides: Record<string, LoadResult> = {};
      for (const s of c.sides)
        sides[s.name] = await runLoad(s.target, { connections, durationS: o.sweepS, side: { ...s.procs, heap: undefined } });
      sw.rows.push({ connections, sides });
      o.log(
        `${c.title} sweep ${connections} connections: ${c.sides.map((s) => `${s.name} ${sides[s.name]!.rps}/s p50 ${sides[s.name]!.p50Ms} p99 ${sides[s.name]!.p99Ms}`).join(' | ')}`,
      );
    }
    sweep.push(sw);
  }

  const underLoad: Record<string, MemoryRow> = {};
  for (const s of all) {
    const row = underLoadRow(
      cases.filter((c) => c.sides.some((x) => x.name === s.name)).flatMap((c) => c.passes),
      s.name,
    );
    if (row) underLoad[s.name] = row;
  }
  const afterLoad: Record<string, MemoryRow> = {};
  for (const s of all) afterLoad[s.name] = await memoryRow(s);

  const intro = o.introspection
    ? { uncached: combined('uncached')!, cached: combined('cached')!, revoked: combined('revoked')! }
    : undefined;
  return { token: combined('token'), introspection: intro, openLoop, sweep, memory: { atRest, underLoad, afterLoad, dbIdleCpuShare } };
}
