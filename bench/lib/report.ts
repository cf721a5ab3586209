import type { HttpResults, MemoryRow } from '../sections/http-compare.ts';
import type { OpStats } from '../sections/lists.ts';
import type { ComparisonResult, SideSummary, Spread } from './side-by-side.ts';
import { DYNAMODB_PEER, likeForLike } from './targets.ts';
import type { BenchResults, SectionError } from './types.ts';

const isErr = (x: unknown): x is SectionError => !!x && typeof x === 'object' && 'error' in x;
const n = (v: number | null | undefined, d = 1) =>
  v === null || v === undefined || Number.isNaN(v) ? '–' : Number(v.toFixed(d)).toLocaleString('en-US');
const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
const table = (head: string[], rows: (string | number)[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

const sp = (x: Spread) => `${n(x.median, 2)}× (${n(x.min, 2)}–${n(x.max, 2)})`;

/** One comparison: per-side medians over every round, then the paired ratios with their spread. */
function comparison(c: ComparisonResult): string {
  const row = (name: string, x: SideSummary) => [
    name,
    n(x.rps, 0),
    n(x.p50Ms),
    n(x.p99Ms),
    x.ok,
    x.non2xx,
    x.throttled,
    x.errors,
    n(x.cpuShare, 2),
    n(x.dbShareOfCpu, 2),
    n(x.waitShare, 2),
    n(x.perCpuS, 0),
    n(x.perCpuSWithDb, 0),
  ];
  const passes = c.passes.length;
  const out = [
    table(
      [
        'server',
        'req/s',
        'p50 ms',
        'p99 ms',
        '2xx',
        'non-2xx',
        '429',
        'conn. errors',
        'CPU share (server + db)',
        'db share of that CPU',
        'starved share',
        '2xx per server CPU-s',
        '2xx per CPU-s incl. db',
      ],
      c.sides.map((s) => row(s, c.summaries[s]!)),
    ),
    '',
    `Ratios ours/peer: median of the ${passes} passes' medians, and (min–max) over all ${passes * c.roundsPerPass} paired rounds (${c.connections} connections, ${c.durationS} s per run):`,
    '',
    table(
      ['peer', 'per CPU-s incl. database', 'per server CPU-s', 'raw throughput', 'p99 theirs/ours', 'per pass (per CPU-s incl. db)'],
      c.verdict.map((v) => [
        v.peer,
        `**${sp(v.perCpuWithDb)}**`,
        sp(v.perCpu),
        sp(v.rps),
        sp(v.p99),
        c.passes.map((p) => n(p.ratios.find((r) => r.peer === v.peer)?.perCpuWithDb.median, 2)).join(', '),
      ]),
    ),
  ];
  if (c.note) out.push('', c.note);
  return out.join('\n');
}

function memoryTable(m: HttpResults['memory']): string {
  const cell = (r: MemoryRow | undefined) =>
    r
      ? `${n(r.rssMb)} / ${r.heapUsedMb === null ? '–' : n(r.heapUsedMb)} / ${r.heapTotalMb === null ? '–' : n(r.heapTotalMb)}${r.dbRssMb === null ? '' : ` (db ${n(r.dbRssMb)})`}`
      : '–';
  return table(
    ['server', 'at rest: RSS / heap used / heap total MB (db RSS)', 'under load', 'after all load'],
    Object.keys(m.atRest).map((k) => [k, cell(m.atRest[k]), cell(m.underLoad[k]), cell(m.afterLoad[k])]),
  );
}

const op = (s: OpStats) => (s.error && !s.samples ? `error ${s.status}` : `${n(s.medianMs)} (p90 ${n(s.p90Ms)})`);

export function renderMarkdown(r: BenchResults): string {
  const m = r.meta;
  const out: string[] = [];
  out.push('# Benchmark report');
  out.push('');
  out.push(
    `Run ${m.startedAt} (${Math.round(m.durationS)} s), commit \`${m.commit.slice(0, 10)}\`${m.dirty ? ' + uncommitted changes' : ''}, Node ${m.node}, ${m.cpus}× ${m.cpuModel}, load average ${m.loadAvg.before} → ${m.loadAvg.after}. ${m.pinning}`,
  );
  if (m.dirty)
    out.push('', '**⚠ DIRTY TREE: this run measured uncommitted changes; it is not a reference and was not written to latest.\\*.**');
  if (!m.fullRun)
    out.push('', '**Partial run** (`--quick`, `--sections` or changed settings): not a reference, not written to latest.\\*.');
  out.push('');
  out.push(
    'How to read this, and what each number means: [docs/benchmarks.md](../../docs/benchmarks.md). Ratios matter more than absolute numbers on a shared machine.',
  );
  out.push('');
  out.push('## Targets (issues 5 and 14)');
  out.push('');
  out.push(
    table(
      ['target', 'measured', 'met'],
      r.targets.map((t) => [
        t.target,
        t.measured + (t.note ? ` — ${t.note}` : ''),
        t.met === null ? 'not measured' : t.met ? 'yes' : '**no**',
      ]),
    ),
  );
  out.push('');

  const h = r.http;
  out.push('## 1. Token issuance over HTTP (client_credentials, ES256 JWT)');
  out.push('');
  if (!h?.token) out.push('Not measured.');
  else if (isErr(h.token)) out.push(`Failed: ${h.token.error}`);
  else {
    out.push(comparison(h.token));
    out.push('');
    out.push(
      `Ours: client \`${m.fixtures.ours.source}\`${m.fixtures.ours.note ? ` (${m.fixtures.ours.note})` : ''}, \`resource=${m.fixtures.ours.resource}\`, \`scope=${m.fixtures.ours.scope}\`. Theirs: oidc-provider ${m.versions['oidc-provider'] ?? ''}, \`resource=${m.fixtures.theirs.resource}\`, \`scope=${m.fixtures.theirs.scope}\`, \`accessTokenFormat: jwt\`, ES256 (a JWT token touches no storage there, so the Redis variant is not run for tokens). Ours' database is DynamoDB Local (a JVM on the server core); its CPU is counted in "incl. db".`,
    );
  }
  if (m.liftedThrottles.length) {
    out.push('');
    const cap = m.liftedThrottles.find((t) => t.route === 'POST /token')?.throttle.rateLimit;
    const peak = h?.token && !isErr(h.token) ? h.token.summaries.ours?.peakRps : undefined;
    out.push(
      `Route throttles lifted in the bench's server process (a benchmark must not measure 429s): ${m.liftedThrottles.map((t) => `${t.route} ${t.throttle.rateLimit}/${t.throttle.burstLimit}`).join(', ')}.` +
        (cap && peak !== undefined
          ? ` Ours peaked at ${n(peak, 0)} tokens/s in a run: the ${cap}/s route throttle ${peak > cap ? '**would have capped it**' : 'would not have bound in this run'}.`
          : ''),
    );
  }
  out.push('');

  out.push('## 2. Introspection over HTTP');
  out.push('');
  out.push(
    `Ours: \`POST /tokeninfo\` with our JWTs. Theirs: \`POST /token/introspection\` with opaque tokens of the same client (oidc-provider refuses to introspect JWT access tokens: "Structured JWT Tokens cannot be introspected"), with two storages: in memory, and its Redis adapter against a real redis-server ${'version' in m.redis ? m.redis.version : ''} on the server core, whose CPU is counted as that side's database. Both callers authenticate with client_secret_basic. What each side does per request differs: ours verifies an ES256 signature (uncached) and checks the token's revocation binding in memory; theirs verifies no signature, it looks the opaque token up in its storage.`,
  );
  if ('missing' in m.redis) out.push('', `**REDIS NOT MEASURED: ${m.redis.missing}.**`);
  for (const [key, title] of [
    ['uncached', '2a. Uncached: each request of ours verifies a signature; theirs looks a token up'],
    ['cached', '2b. Cached: a small pool of tokens'],
    ['revoked', '2c. Revoked tokens'],
  ] as const) {
    out.push('');
    out.push(`### ${title}`);
    out.push('');
    const c = h?.introspection?.[key];
    if (!c) out.push('Not measured.');
    else if (isErr(c)) out.push(`Failed: ${c.error}`);
    else out.push(comparison(c));
  }
  out.push('');

  out.push('## Latency at a fixed arrival rate (open loop) and by connections');
  out.push('');
  if (!h?.openLoop.length) out.push('Not measured.');
  else {
    out.push(
      'Open loop: requests are sent on a fixed schedule whatever the answers (new connections opened as needed), and latency runs from the scheduled time, so queueing shows (no coordinated omission). Rates are 50% and 80% of the slower side\'s median closed-loop throughput above. Each rate runs in the throughput runs\' protocol: after 1 s unmeasured per side, passes of rounds, every side once per round, the order rotating; latencies are medians over all runs, "max" the largest of any run. "loop delay" is how late the server\'s own event loop ran a 5 ms timer (p99 median / worst run), "GC" its longest pause and its GC time per second, "db" its database\'s share of a core and the database collector\'s CPU per second (docs/benchmarks.md "The open-loop stall"). "send lag" is how late the load generator itself was.',
    );
    for (const ol of h.openLoop) {
      out.push('');
      out.push(`**${ol.case}** (slower side: ${ol.peakSide}, ${n(ol.peakRps, 0)} req/s closed loop)`);
      out.push('');
      const sides = Object.keys(ol.rates[0]?.sides ?? {});
      const runs = (ol.rates[0]?.passes ?? []).flat().length;
      out.push(
        table(
          [
            'rate',
            'server',
            'p50 ms',
            'p99 ms (rounds min–max)',
            'p99.9 ms',
            'max ms',
            '2xx/s',
            'errors',
            'most in flight',
            'loop delay p99 / max ms',
            'GC max ms / ms per s',
            'db core share / db GC ms per s',
            'send lag p99 ms',
          ],
          ol.rates.flatMap((rt) =>
            sides.map((sd) => {
              const x = rt.sides[sd]!;
              return [
                `${n(rt.rate, 0)}/s (${n(rt.share * 100, 0)}%)`,
                sd,
                n(x.p50Ms, 2),
                `${n(x.p99Ms, 2)} (${n(x.p99.min, 1)}–${n(x.p99.max, 1)})`,
                n(x.p999Ms, 2),
                n(x.maxMs, 1),
                n(x.okRps, 0),
                x.errors,
                x.maxInFlight,
                `${n(x.loopDelayP99Ms, 1)} / ${n(x.loopDelayMaxMs, 1)}`,
                `${n(x.gcMaxMs, 1)} / ${n(x.gcMsPerS, 1)}`,
                `${n(x.dbCpuShare, 2)} / ${n(x.dbGcMsPerS, 1)}`,
                n(x.sendLagP99Ms, 2),
              ];
            }),
          ),
        ),
      );
      out.push('');
      out.push(
        table(
          ['rate', 'peer', 'p99 theirs ÷ ours', 'p99.9 theirs ÷ ours', 'per pass (p99)'],
          ol.rates.flatMap((rt) =>
            rt.ratios.map((r) => [
              `${n(rt.rate, 0)}/s (${n(rt.share * 100, 0)}%)`,
              r.peer,
              `**${n(r.p99.median, 2)}×** (${n(r.p99.min, 2)}–${n(r.p99.max, 2)})`,
              `${n(r.p999.median, 2)}× (${n(r.p999.min, 2)}–${n(r.p999.max, 2)})`,
              r.perPass.map((x) => n(x, 2)).join(', '),
            ]),
          ),
        ),
      );
      out.push('');
      out.push(`Ratios: > 1 means our tail is shorter; median of the passes' medians, (min–max) over all ${runs} paired rounds.`);
    }
    for (const sw of h.sweep) {
      out.push('');
      out.push(`**${sw.case}, closed loop by connections** (one connection is what a Lambda container sees: one event at a time)`);
      out.push('');
      const sides = Object.keys(sw.rows[0]?.sides ?? {});
      out.push(
        table(
          ['connections', ...sides.flatMap((sd) => [`${sd} req/s`, `${sd} p50 / p99 ms`, `${sd} per CPU-s incl. db`])],
          sw.rows.map((row) => [
            row.connections,
            ...sides.flatMap((sd) => [
              n(row.sides[sd]!.rps, 0),
              `${n(row.sides[sd]!.p50Ms)} / ${n(row.sides[sd]!.p99Ms)}`,
              n(row.sides[sd]!.okPerCpuSWithDb, 0),
            ]),
          ]),
        ),
      );
    }
  }
  out.push('');

  out.push('## Memory');
  out.push('');
  if (h) {
    out.push(
      'Server processes (RSS from /proc; heap from the process itself on SIGUSR2; under load: RSS peak over the runs, heap in the middle of the first round):',
    );
    out.push('');
    out.push(memoryTable(h.memory));
    out.push('');
    out.push(
      `Database CPU with no load at all (share of a core over 3 s at rest): ${Object.entries(h.memory.dbIdleCpuShare)
        .map(([k, v]) => `${k} ${n(v, 3)}`)
        .join(', ')}. This is counted in "incl. db" during the runs too.`,
    );
    out.push('');
  }
  if (r.leak && !isErr(r.leak)) {
    const lk = r.leak;
    out.push(
      `The token function alone (a fresh process running the TypeScript sources under tsx, whose loader adds to the RSS; envelope mode; one event at a time): ${lk.tokens.toLocaleString('en-US')} tokens in ${n(lk.seconds)} s, ${lk.failed} failed; heap after a full GC grew by **${n(lk.heapGrowthMb, 2)} MB** from the 10% checkpoint to the end (${n(lk.heapGrowthPer10kMb, 3)} MB per 10,000 tokens); peak RSS ${n(lk.peakRssMb)} MB.`,
    );
    out.push('');
    out.push(
      table(
        ['tokens', 'RSS MB', 'heap used MB', 'heap total MB', 'external MB'],
        lk.samples.map((x) => [x.tokens.toLocaleString('en-US'), n(x.rssMb), n(x.heapUsedMb, 2), n(x.heapTotalMb), n(x.externalMb, 2)]),
      ),
    );
  } else out.push(`Leak check not measured${isErr(r.leak) ? `: ${r.leak.error}` : ''}.`);
  const mem = r.cost && !isErr(r.cost) ? r.cost.memory : undefined;
  if (mem) {
    out.push('');
    out.push(
      `**Recommended Lambda memory for the token function: ${mem.recommendedMb} MB** (${mem.rule}). Lambda gives CPU in proportion to memory (one vCPU at 1,769 MB), so the CPU-bound parts stretch by 1/vCPU below that:`,
    );
    out.push('');
    out.push(
      table(
        ['memory MB', 'vCPU', 'warm token ms (billed)', 'cold start ms, projected', 'peak RSS share', 'duration $ per million tokens'],
        mem.options.map((o) => [
          o.memoryMb,
          n(o.vcpu, 3),
          `${n(o.warmMs, 3)} (${o.billedMs})`,
          n(o.coldReadyMs, 0),
          `${n(o.rssShare * 100, 0)}%`,
          `$${o.usdPerMillionDuration.toFixed(3)}`,
        ]),
      ),
    );
  }
  out.push('');

  out.push('## 3. The limit: one core, no HTTP');
  out.push('');
  if (isErr(r.limits) || !r.limits) out.push(`Not measured: ${isErr(r.limits) ? r.limits.error : 'skipped'}`);
  else {
    const l = r.limits;
    const rate = (name: string, r: { perSec: number; perCpuSec: number } | null) =>
      r ? [name, n(r.perCpuSec, 0), n(1e6 / r.perCpuSec), n(r.perSec, 0)] : [name, '–', '–', '–'];
    out.push(
      table(
        ['what', 'per CPU-second', 'CPU µs each', 'per wall second'],
        [
          rate('raw ES256 sign (node:crypto)', l.es256Sign),
          rate('raw ES256 verify (node:crypto)', l.es256Verify),
          rate('key store signJwt (JWS around the signature)', l.signJwt),
          rate('token handler, in process (functions/oauth/token.ts)', l.tokenHandler),
          rate(`tokeninfo handler, in process (${l.tokeninfoDdbCallsPerRequest ?? '–'} DynamoDB calls per request)`, l.tokeninfoHandler),
          rate(
            `tokeninfo handler, in process, uncached (${l.tokeninfoUncached ? `${l.tokeninfoUncached.pool.toLocaleString('en-US')} tokens round-robin; ${l.tokeninfoUncached.ddbCallsPerRequest} DynamoDB calls, ${l.tokeninfoUncached.rruPerRequest} RRU per request` : '–'})`,
            l.tokeninfoUncached,
          ),
        ],
      ),
    );
    out.push('');
    out.push(
      `Per token (CPU time): signature ${n(l.breakdownUs.signature)} µs + JWS layer ${n(l.breakdownUs.jws)} µs + rest of the handler ${n(l.breakdownUs.handlerRest)} µs = ${n(l.breakdownUs.total)} µs; the handler runs at ${n(l.shareOfSignLimit * 100, 0)}% of the raw signing limit. One event at a time, as a Lambda container runs them; "per CPU-second" divides by the CPU time this process used, which is what one free core would do (the wall-clock rate depends on what else the shared machine runs). During the timed run (${l.tokenRun.tokens} tokens, warm container, envelope key mode): ${l.tokenRun.ddb.calls} DynamoDB calls (${n(l.tokenRun.ddbReadsPerToken, 5)} reads and ${n(l.tokenRun.rruPerToken, 5)} RRU per token), ${l.tokenRun.kmsCalls} KMS calls.`,
    );
    out.push('');
    const loopUs = l.breakdownUs.total + l.eventBuildUs;
    const benchSide = (area: string) => area.startsWith('bench/') || area.startsWith('infra/local');
    out.push(
      `Where a token's CPU goes (V8 sampling profile of the handler loop, self time, as µs per token of the loop's ${n(loopUs)} µs; building the event and context is the bench's work, ${n(l.eventBuildUs)} µs, already taken out of the handler's figures above; the native row holds the signature, ${n(l.breakdownUs.signature)} µs measured alone):`,
    );
    out.push('');
    out.push(
      table(
        ['area', 'share', 'µs per token'],
        l.profile.areas.map((a) => [
          benchSide(a.area) ? `${a.area} (bench, not in Lambda)` : a.area,
          `${n(a.share * 100, 1)}%`,
          n(a.share * loopUs, 2),
        ]),
      ),
    );
    out.push('');
    out.push('Top functions (self time):');
    out.push('');
    out.push(
      table(
        ['function (area)', 'share', 'µs per token'],
        l.profile.topFunctions.slice(0, 20).map((a) => [a.area.replace(/\|/g, '\\|'), `${n(a.share * 100, 1)}%`, n(a.share * loopUs, 2)]),
      ),
    );
    if (l.tokeninfoProfile) {
      out.push('');
      out.push("The tokeninfo handler's CPU, by area:");
      out.push('');
      out.push(
        table(
          ['area', 'share'],
          l.tokeninfoProfile.areas.slice(0, 8).map((a) => [a.area, `${n(a.share * 100, 1)}%`]),
        ),
      );
    }
  }
  out.push('');

  out.push('## 4. Management at scale: list clients');
  out.push('');
  if (isErr(r.lists) || !r.lists) out.push(`Not measured: ${isErr(r.lists) ? r.lists.error : 'skipped'}`);
  else if (r.lists.skipped) out.push(`Not measured: ${r.lists.skipped}`);
  else {
    const L = r.lists;
    out.push(
      `Latency in ms, median (p90), HTTP on loopback to the in-process local server (envelope key mode, fake KMS); \`limit=${L.limit}\`; the caller holds \`read:clients create:clients\`. DynamoDB per request from the meter. The last column is the same first page for a caller that also holds \`read:client_keys\`: every returned client's secret is opened, in memory under the secret box's data key (no KMS call warm).`,
    );
    out.push('');
    out.push(
      table(
        ['clients', 'first page', 'offset 900', 'cursor (item 900)', 'create client', 'first page, caller with read:client_keys'],
        L.sizes.map((s) => [
          s.clients.toLocaleString('en-US'),
          op(s.firstPage),
          op(s.offset900),
          op(s.cursor),
          op(s.create),
          `${op(s.firstPageWithSecrets)}, ${n(s.firstPageWithSecrets.kmsCalls)} KMS calls`,
        ]),
      ),
    );
    out.push('');
    out.push(
      table(
        ['clients', 'first page calls / RRU', 'offset 900 calls / RRU', 'cursor calls / RRU', 'create calls / RRU / WRU'],
        L.sizes.map((s) => [
          s.clients.toLocaleString('en-US'),
          `${n(s.firstPage.ddbCalls)} / ${n(s.firstPage.rru)}`,
          `${n(s.offset900.ddbCalls)} / ${n(s.offset900.rru)}`,
          `${n(s.cursor.ddbCalls)} / ${n(s.cursor.rru)}`,
          `${n(s.create.ddbCalls)} / ${n(s.create.rru)} / ${n(s.create.wru)}`,
        ]),
      ),
    );
    out.push('');
    out.push(
      `First page at ${L.sizes.at(-1)!.clients.toLocaleString('en-US')} vs ${L.sizes[0]!.clients}: **${n(L.firstPageGrowth, 2)}×**. Seeding: ${L.seedSource}, ${L.seedMs} ms in all.`,
    );
  }
  out.push('');

  out.push('## 5. Cold start per handler bundle');
  out.push('');
  if (!r.coldStart) out.push('Not measured.');
  else {
    const c = r.coldStart;
    out.push(
      `esbuild ${c.esbuild} with the construct's own bundling options (\`BUNDLING\`, imported from infra/constructs/service-function.ts: ESM, minified, node24, source map without sources, AWS SDK v3 bundled), built in ${c.buildMs} ms. Envelope key mode: the bundles reach KMS through the bench's HTTP stand-in (${
        c.kmsStandInCalls
          ? Object.entries(c.kmsStandInCalls)
              .map(([k, v]) => `${v} ${k}`)
              .join(', ') || 'no calls'
          : '–'
      } over all runs). Ready = fresh \`node\` process started with the function's flags (\`FUNCTION_NODE_FLAGS\`: ${c.nodeFlags.length ? c.nodeFlags.join(' ') : 'none'}) → first handled event, median of the runs; it splits into Node's start (boot), the module import, and the first event.`,
      '',
      "How this maps to Lambda: Lambda's **Init Duration** (the REPORT line of a cold invocation) covers starting the runtime and importing the handler module (top-level code, including any top-level await): here boot + import, plus the runtime client's own start-up, which this cannot see. The first event is not in Init Duration: it is the first invocation's Duration (here, one DynamoDB read and one KMS Decrypt for the signing key). Lambda also downloads and unpacks the code before Init, and below 1,769 MB runs it at a fraction of a vCPU, so these are lower bounds, comparable between runs and handlers.",
    );
    out.push('');
    out.push(`Five largest: ${c.largest.map((h) => `\`${h}\``).join(', ')}.`);
    if (c.token) {
      out.push('');
      out.push(
        `Token handler: ${kb(c.token.bytes)} (gzip ${kb(c.token.gzipBytes)}), ready in ${n(c.token.readyMs)} ms = boot ${n(c.token.bootMs)} ms + import ${n(c.token.importMs)} ms (≈ Init Duration: ${n((c.token.bootMs ?? 0) + (c.token.importMs ?? 0))} ms) + first token ${n(c.token.handleMs)} ms (its one DynamoDB read, a BatchGetItem, and the signing-key unwrap: one KMS Decrypt).` +
          (c.tokenWithSourceMaps
            ? ` With \`--enable-source-maps\`: ready in ${n(c.tokenWithSourceMaps.readyMs)} ms (import ${n(c.tokenWithSourceMaps.importMs)} ms).`
            : '') +
          (c.tokenSdkExternal
            ? ` With \`@aws-sdk/*\` and \`@smithy/*\` external (the runtime's SDK): ${kb(c.tokenSdkExternal.bytes)}, ready in ${n(c.tokenSdkExternal.readyMs)} ms (import ${n(c.tokenSdkExternal.importMs)} ms)${c.tokenSdkExternal.error ? `; error: ${c.tokenSdkExternal.error.slice(0, 120)}` : ''}.`
            : ''),
      );
    }
    out.push('');
    const rows = [...c.bundles]
      .sort((a, b) => b.bytes - a.bytes)
      .map((b) => [
        `\`${b.handler}\``,
        kb(b.bytes),
        kb(b.gzipBytes),
        b.sdkExternalBytes === null ? '–' : kb(b.sdkExternalBytes),
        b.topInputs.map((t) => `${t.input} ${kb(t.bytes)}`).join(', '),
        b.readyMs === null ? '–' : n(b.readyMs),
        b.bootMs === null ? '–' : n(b.bootMs),
        b.importMs === null ? '–' : n(b.importMs),
        b.handleMs === null ? '–' : n(b.handleMs),
        b.error ? `error: ${b.error.slice(0, 80)}` : `${b.event} → ${b.status ?? '–'}`,
      ]);
    out.push(
      table(
        ['handler', 'size', 'gzip', 'size, SDK external', 'largest inputs', 'ready ms', 'boot ms', 'import ms', 'first event ms', 'event'],
        rows,
      ),
    );
    if (c.missing.length) {
      out.push('');
      out.push(`Not written yet (in the route table, no module): ${c.missing.map((h) => `\`${h}\``).join(', ')}.`);
    }
  }
  out.push('');

  out.push('## 6. DynamoDB and KMS per request');
  out.push('');
  if (!r.ddb) out.push('Not measured.');
  else {
    out.push(
      "Counted by an SDK middleware on the runtime's DynamoDB client (`ReturnConsumedCapacity: TOTAL`, capacity as DynamoDB Local reports it) and by the KMS mock; cold = first request of a fresh process, warm = mean over the requests after it.",
    );
    out.push('');
    out.push(
      table(
        ['operation', 'cold: calls (reads) / RRU / WRU', 'cold KMS', 'warm: calls (reads) / RRU / WRU per request', 'warm KMS', 'status'],
        r.ddb.operations.map((o) => [
          o.operation,
          o.cold ? `${o.cold.ddbCalls} (${o.cold.reads}) / ${n(o.cold.rru, 2)} / ${n(o.cold.wru, 2)}` : '–',
          o.cold
            ? `${o.cold.kmsCalls}${
                Object.keys(o.cold.kms).length
                  ? ` (${Object.entries(o.cold.kms)
                      .map(([k, v]) => `${v} ${k}`)
                      .join(', ')})`
                  : ''
              }`
            : '–',
          o.warm
            ? `${n(o.warm.ddbCalls, 4)} (${n(o.warm.reads, 4)}) / ${n(o.warm.rru, 4)} / ${n(o.warm.wru, 2)} over ${o.warm.requests}`
            : '–',
          o.warm ? n(o.warm.kmsCalls, 4) : '–',
          o.error ? `error: ${o.error.slice(0, 100)}` : String(o.status ?? '–') + (o.note ? ` (${o.note.slice(0, 120)})` : ''),
        ]),
      ),
    );
  }
  out.push('');

  out.push('## 7. Cost per million client_credentials tokens');
  out.push('');
  if (isErr(r.cost) || !r.cost) out.push(`Not computed: ${isErr(r.cost) ? r.cost.error : 'skipped'}`);
  else {
    const c = r.cost;
    out.push(
      table(
        ['item', 'basis', 'USD per million'],
        [
          ...c.lines.map((l) => [l.item, l.basis, `$${l.usdPerMillion.toFixed(4)}`]),
          ['**total**', '', `**$${c.totalUsdPerMillion.toFixed(3)}**`],
        ],
      ),
    );
    out.push('');
    out.push(
      `With an HTTP API instead of the REST API: $${c.totalWithHttpApiUsd.toFixed(3)}. kms-sign mode would add $${c.kmsSignModeExtraUsd.toFixed(2)} (one KMS Sign per token).`,
    );
    out.push('');
    out.push('Assumptions:');
    out.push('');
    for (const a of c.assumptions) out.push(`- ${a}`);
  }
  out.push('');
  out.push(...observability(r.observability));
  out.push(...userFlows(r.users, r.meta.dynamodbPeer));
  out.push(...rbac(r.rbac));
  out.push(...authorizeFlow(r.authorizeFlow));
  if (r.errors.length) {
    out.push('## Errors');
    out.push('');
    for (const e of r.errors) out.push(`- ${e.section}: ${e.message.replace(/\n/g, ' ').slice(0, 500)}`);
    out.push('');
  }
  return out.join('\n');
}

/** Section 11: the authorization-code flow, as bench/authorize-flow.ts prints it. */
function authorizeFlow(r: BenchResults['authorizeFlow']): string[] {
  if (!r) return [];
  const out = ['## 11. Authorization-code flow', ''];
  if ('error' in r) return [...out, `Failed: ${r.error.slice(0, 300)}`, ''];
  out.push(
    `authorize (\`prompt=none\`, a signed-in browser's session cookie, PKCE S256) → code → token, ${r.flows} flows each side, alternating, one at a time over loopback HTTP; ours on DynamoDB Local, oidc-provider in memory.`,
  );
  out.push('', r.markdown, '');
  return out;
}

/** Section 10: RBAC: token reads for a user 10 levels deep; a role added to a group of many members. */
function rbac(r: BenchResults['rbac']): string[] {
  const out = ['## 10. RBAC: tokens through nested groups, a role added to a big group', ''];
  if (!r) return [...out, 'Not run.', ''];
  if (isErr(r)) return [...out, `Failed: ${r.error}`, ''];
  const s = r.shape;
  out.push(
    `The user is in ${s.chains} groups, each the bottom of a chain of ${s.depth} nested groups (${s.groups} groups, one role each); the token (refresh grant, \`rbac_enabled\` Resource) carries ${s.scopesInToken} permissions. Target: ≤ 3 BatchGetItem for the user's groups and roles cold, 0 warm.`,
    '',
    table(
      ['case', 'requests', 'DynamoDB calls / token', 'BatchGetItem / token', 'RRU', 'WRU', 'calls by command'],
      r.tokens.map((t) => [
        t.case,
        String(t.requests),
        n(t.ddbCalls, 3),
        n(t.batchGets, 3),
        n(t.rru, 2),
        n(t.wru, 2),
        Object.entries(t.byCommand)
          .map(([k, v]) => `${n(v, 3)} ${k.replace('Command', '')}`)
          .join(', '),
      ]),
    ),
    '',
  );
  const a = r.addRole;
  out.push(
    `Adding a role to a group of ${a.members.toLocaleString('en-US')} members (seeded in ${n(a.seedSeconds, 1)} s): **${n(a.ms, 1)} ms**, **${n(a.wru, 2)} WRU** (${n(a.rru, 2)} RRU), answer ${a.status}; calls: ${Object.entries(
      a.byCommand,
    )
      .map(([k, v]) => `${v} ${k.replace('Command', '')}`)
      .join(
        ', ',
      )}. Re-sent (an interrupted call retried): ${a.resend.status}, ${n(a.resend.wru, 2)} WRU. A member's effective permissions show the role's scope through the group: ${a.memberSeesIt ? 'yes' : '**no**'}.`,
    '',
  );
  for (const note of r.notes) out.push(`- ${note}`);
  out.push('');
  return out;
}

/** What our DynamoDB Local spent during a password measure, and its JIT compiler's part: how warm it was. */
const dbCpu = (db: { all: number; compiler: number } | undefined, explain = false) =>
  db
    ? `; during the measure our DynamoDB Local took ${n(db.all, 2)} ms of CPU per sample (one hash, one grant), ${n(db.compiler, 2)} ms of it in its JIT compiler threads${explain ? ` (near 0 = a warm database; read in 10 ms ticks, so 40 samples resolve 0.25 ms; docs/benchmarks.md "Password grant: the database's JIT")` : ''}`
    : '';

/** Section 9: the user flows; a part not measured says why, never a number. */
function userFlows(u: BenchResults['users'], dynamodbPeer: BenchResults['meta']['dynamodbPeer']): string[] {
  const out = ['## 9. User flows: password, refresh, /userinfo', ''];
  if (!u) return [...out, 'Not run.', ''];
  if (isErr(u)) return [...out, `Failed: ${u.error}`, ''];
  if (dynamodbPeer && 'missing' in dynamodbPeer) out.push(`**${DYNAMODB_PEER.toUpperCase()} NOT MEASURED: ${dynamodbPeer.missing}.**`, '');
  if (u.missing.length) {
    out.push('**Not measured in this run** (nothing below stands in for them):', '');
    for (const m of u.missing) out.push(`- ${m}`);
    out.push('');
  }
  if (u.password) {
    const p = u.password;
    out.push('### Password grant ÷ one argon2id hash', '');
    out.push(
      table(
        ['', 'median ms', 'p90 ms'],
        [
          ['one `hashPassword` (worker process on the server core)', n(p.hashMs.median, 2), n(p.hashMs.p90, 2)],
          ['password grant over HTTP, success', n(p.grantMs.median, 2), n(p.grantMs.p90, 2)],
        ],
      ),
      '',
      `Ratio (grant median ÷ hash median, ${p.samples} interleaved samples): **${n(p.ratio, 2)}×** (target ≤ 1.3×).`,
      '',
      `Warm-up: ${p.warmupGrants} password grants before the measure${dbCpu(p.dbMs, true)}.`,
      '',
    );
    if (p.cold)
      out.push(
        `Not judged, for what the warm-up changes: the same ${p.samples} samples taken first, after 3 grants (as sessions 7–9 measured), read grant ${n(p.cold.grantMs.median, 2)} ms, hash ${n(p.cold.hashMs.median, 2)} ms: ${n(p.cold.ratio, 2)}×${dbCpu(p.cold.dbMs)}.`,
        '',
      );
    if (p.dbOwnCore)
      out.push(
        `Not judged, for what a database with a CPU of its own changes: the same ${p.samples} samples with our DynamoDB Local moved to the load core (idle between these one-at-a-time requests) read grant ${n(p.dbOwnCore.grantMs.median, 2)} ms, hash ${n(p.dbOwnCore.hashMs.median, 2)} ms: ${n(p.dbOwnCore.ratio, 2)}× (docs/benchmarks.md "Password grant: three stages").`,
        '',
      );
  }
  if (u.refresh) {
    out.push('### Refresh grant, side by side (each connection rotates its own refresh token)', '', comparison(u.refresh), '');
    out.push(
      `Peers: oidc-provider in memory (its development-only store), on Redis, and on DynamoDB Local (its DynamoDB storage, bench/servers/oidc-dynamodb-adapter.ts, against a DynamoDB Local of its own on the server core: a durable store on both sides, each side's DynamoDB Local counted on its side; the refresh target is judged against this one, docs/benchmarks.md "Refresh: the measure"). The ${likeForLike(u.refresh, dynamodbPeer)}.`,
      '',
    );
  }
  if (u.userinfo) out.push('### /userinfo, side by side (oidc-provider: /me)', '', comparison(u.userinfo), '');
  if (u.ddb.length) {
    out.push('### DynamoDB per request (in-process stack, warm, one request at a time)', '');
    out.push(
      table(
        ['operation', 'requests', 'reads', 'writes', 'most in one request', 'RRU', 'WRU', 'calls by command'],
        u.ddb.map((d) => [
          d.operation,
          `${d.requests} in ${n(d.seconds, 1)} s`,
          n(d.reads, 3),
          n(d.writes, 3),
          `${d.maxReads} reads + ${d.maxWrites} writes`,
          n(d.rru, 2),
          n(d.wru, 2),
          Object.entries(d.byCommand)
            .map(([k, v]) => `${n(v, 3)} ${k.replace('Command', '')}`)
            .join(', '),
        ]),
      ),
      '',
      'Reads and writes are calls per request, averaged; "most in one request" is the highest any single request made, which the targets judge. Records (client, user, keys) are cached for 1 s per container and the refresh and /userinfo runs last at least 3 s, so requests that find a record expired are counted: a stale record is read in the request\'s one call, not by a call of its own.',
      '',
    );
  }
  for (const note of u.notes) out.push(note, '');
  return out;
}

/** Section 7's metrics and traces on the token path (bench/sections/observability.ts). */
function observability(o: BenchResults['observability']): string[] {
  if (!o) return [];
  const out = ['### Metrics and traces: the cost per token', ''];
  if (isErr(o)) return [...out, `Not measured: ${o.error}`, ''];
  const label = {
    off: 'no metrics',
    emfEach: 'EMF at every invocation',
    emfHeld: 'EMF held, published once a minute (default)',
    tracer: 'held EMF + Powertools Tracer',
  } as const;
  out.push(
    table(
      ['token handler', 'CPU µs per token', '÷ no metrics: median (min–max of rounds)', 'stdout bytes per token'],
      (Object.keys(label) as (keyof typeof label)[]).map((v) => {
        const x = o.variants[v];
        return [
          label[v],
          x.usPerToken.toFixed(1),
          `${x.ratioToOff.median.toFixed(3)} (${x.ratioToOff.min.toFixed(3)}–${x.ratioToOff.max.toFixed(3)})`,
          x.stdoutBytesPerToken.toFixed(1),
        ];
      }),
    ),
  );
  out.push('');
  out.push(
    `In one process, alternating slices; the invocation's input (event, context, trace id: ${o.inputUs} µs) taken out. The held variant's bytes are its once-a-minute publication, spread over the run's tokens (0 when the run is shorter than a minute after the warm-up's). X-Ray datagrams sent: ${o.xrayDatagrams}.`,
  );
  out.push('');
  return out;
}
