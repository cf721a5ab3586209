import type { OpStats } from '../sections/lists.ts';
import type { SideBySideResult } from './side-by-side.ts';
import type { BenchResults, SectionError } from './types.ts';

const isErr = (x: unknown): x is SectionError => !!x && typeof x === 'object' && 'error' in x;
const n = (v: number | null | undefined, d = 1) => (v === null || v === undefined || Number.isNaN(v) ? '–' : Number(v.toFixed(d)).toLocaleString('en-US'));
const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
const table = (head: string[], rows: (string | number)[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

function sideBySide(s: SideBySideResult, oursName: string, theirsName: string): string {
  const row = (name: string, x: SideBySideResult['ours']) => [name, n(x.rps, 0), n(x.p50Ms), n(x.p99Ms), x.ok, x.non2xx, x.throttled, x.errors, n(x.cpuShare, 2), n(x.waitShare, 2), n(x.perCpuS, 0)];
  const rounds = s.rounds.map((r, i) => `${i + 1} (${r.order}): ${n(r.ours.rps, 0)} vs ${n(r.theirs.rps, 0)}/s`).join('; ');
  return [
    table(['server', 'req/s (median)', 'p50 ms', 'p99 ms', '2xx', 'non-2xx', '429', 'conn. errors', 'server-side CPU share', 'server starved share', '2xx per server-process CPU-s'], [row(oursName, s.ours), row(theirsName, s.theirs)]),
    '',
    `**Ratio ours/theirs: ${n(s.ratio, 2)}×** throughput, ${n(s.cpuRatio, 2)}× per CPU-second of the server process; p99 theirs/ours ${n(s.p99Ratio, 2)}×. ${s.connections} connections, ${s.durationS} s per run, rounds: ${rounds}.`,
  ].join('\n');
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
  out.push('');
  out.push('How to read this, and what each number means: [docs/benchmarks.md](../../docs/benchmarks.md). Ratios matter more than absolute numbers on a shared machine.');
  out.push('');
  out.push('## Targets (issue 5)');
  out.push('');
  out.push(table(['target', 'measured', 'met'], r.targets.map((t) => [t.target, t.measured + (t.note ? ` — ${t.note}` : ''), t.met === null ? 'not measured' : t.met ? 'yes' : '**no**'])));
  out.push('');

  out.push('## 1. Token issuance over HTTP (client_credentials, ES256 JWT)');
  out.push('');
  if (isErr(r.token) || !r.token) out.push(`Not measured: ${isErr(r.token) ? r.token.error : 'skipped'}`);
  else {
    out.push(sideBySide(r.token, 'ours (local server, 1 process)', `oidc-provider ${m.versions['oidc-provider'] ?? ''}`));
    out.push('');
    out.push(`Ours: client \`${m.fixtures.ours.source}\`${m.fixtures.ours.note ? ` (${m.fixtures.ours.note})` : ''}, \`resource=${m.fixtures.ours.resource}\`, \`scope=${m.fixtures.ours.scope}\`. Theirs: \`resource=${m.fixtures.theirs.resource}\`, \`scope=${m.fixtures.theirs.scope}\`, \`accessTokenFormat: jwt\`, ES256. Both: \`client_secret_basic\`.`);
  }
  if (m.liftedThrottles.length) {
    out.push('');
    const cap = m.liftedThrottles.find((t) => t.route === 'POST /token')?.throttle.rateLimit;
    const peak = r.token && !isErr(r.token) ? r.token.ours.peakRps : undefined;
    out.push(
      `Route throttles lifted in the bench's server process (a benchmark must not measure 429s): ${m.liftedThrottles.map((t) => `${t.route} ${t.throttle.rateLimit}/${t.throttle.burstLimit}`).join(', ')}.` +
        (cap && peak !== undefined ? ` Ours peaked at ${n(peak, 0)} tokens/s in a run: the ${cap}/s route throttle ${peak > cap ? '**would have capped it**' : 'would not have bound in this run'}.` : ''),
    );
  }
  out.push('');

  out.push('## 2. Introspection over HTTP');
  out.push('');
  if (isErr(r.introspection) || !r.introspection) out.push(`Not measured: ${isErr(r.introspection) ? r.introspection.error : 'skipped'}`);
  else {
    out.push(sideBySide(r.introspection, 'ours POST /tokeninfo (JWT)', 'oidc-provider POST /token/introspection (opaque)'));
    out.push('');
    out.push(r.introspection.note);
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
        ],
      ),
    );
    out.push('');
    out.push(
      `Per token (CPU time): signature ${n(l.breakdownUs.signature)} µs + JWS layer ${n(l.breakdownUs.jws)} µs + rest of the handler ${n(l.breakdownUs.handlerRest)} µs = ${n(l.breakdownUs.total)} µs; the handler runs at ${n(l.shareOfSignLimit * 100, 0)}% of the raw signing limit. One event at a time, as a Lambda container runs them; "per CPU-second" divides by the CPU time this process used, which is what one free core would do (the wall-clock rate depends on what else the shared machine runs). During the timed run (${l.tokenRun.tokens} tokens, warm container, envelope key mode): ${l.tokenRun.ddb.calls} DynamoDB calls (${n(l.tokenRun.ddbReadsPerToken, 5)} reads and ${n(l.tokenRun.rruPerToken, 5)} RRU per token), ${l.tokenRun.kmsCalls} KMS calls.`,
    );
    out.push('');
    out.push('Where the handler\'s CPU goes (sampling profile, self time):');
    out.push('');
    out.push(table(['area', 'share'], l.profile.areas.map((a) => [a.area, `${n(a.share * 100, 1)}%`])));
    out.push('');
    out.push('Top functions:');
    out.push('');
    out.push(table(['function (area)', 'share'], l.profile.topFunctions.slice(0, 8).map((a) => [a.area.replace(/\|/g, '\\|'), `${n(a.share * 100, 1)}%`])));
    if (l.tokeninfoProfile) {
      out.push('');
      out.push('The tokeninfo handler\'s CPU, by area:');
      out.push('');
      out.push(table(['area', 'share'], l.tokeninfoProfile.areas.slice(0, 8).map((a) => [a.area, `${n(a.share * 100, 1)}%`])));
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
        L.sizes.map((s) => [s.clients.toLocaleString('en-US'), op(s.firstPage), op(s.offset900), op(s.cursor), op(s.create), `${op(s.firstPageWithSecrets)}, ${n(s.firstPageWithSecrets.kmsCalls)} KMS calls`]),
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
    out.push(`First page at ${L.sizes.at(-1)!.clients.toLocaleString('en-US')} vs ${L.sizes[0]!.clients}: **${n(L.firstPageGrowth, 2)}×**. Seeding: ${L.seedSource}, ${L.seedMs} ms in all.`);
  }
  out.push('');

  out.push('## 5. Cold start per handler bundle');
  out.push('');
  if (!r.coldStart) out.push('Not measured.');
  else {
    const c = r.coldStart;
    out.push(
      `esbuild ${c.esbuild}, ESM, minified, node24, platform node, AWS SDK v3 bundled (as infra/constructs/service-function.ts), built in ${c.buildMs} ms. Ready = fresh \`node --enable-source-maps\` process → first handled event, median of the runs.`,
    );
    out.push('');
    out.push(`Five largest: ${c.largest.map((h) => `\`${h}\``).join(', ')}.`);
    if (c.token) {
      out.push('');
      out.push(
        `Token handler: ${kb(c.token.bytes)} (gzip ${kb(c.token.gzipBytes)}), ready in ${n(c.token.readyMs)} ms (import ${n(c.token.importMs)} ms + first token ${n(c.token.handleMs)} ms, which includes its one DynamoDB read (a BatchGetItem) and the signing-key unwrap).` +
          (c.tokenNoSourceMaps ? ` Without \`--enable-source-maps\`: ready in ${n(c.tokenNoSourceMaps.readyMs)} ms (import ${n(c.tokenNoSourceMaps.importMs)} ms).` : '') +
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
        b.importMs === null ? '–' : n(b.importMs),
        b.handleMs === null ? '–' : n(b.handleMs),
        b.error ? `error: ${b.error.slice(0, 80)}` : `${b.event} → ${b.status ?? '–'}`,
      ]);
    out.push(table(['handler', 'size', 'gzip', 'size, SDK external', 'largest inputs', 'ready ms', 'import ms', 'first event ms', 'event'], rows));
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
    out.push('Counted by an SDK middleware on the runtime\'s DynamoDB client (`ReturnConsumedCapacity: TOTAL`, capacity as DynamoDB Local reports it) and by the KMS mock; cold = first request of a fresh process, warm = mean over the requests after it.');
    out.push('');
    out.push(
      table(
        ['operation', 'cold: calls (reads) / RRU / WRU', 'cold KMS', 'warm: calls (reads) / RRU / WRU per request', 'warm KMS', 'status'],
        r.ddb.operations.map((o) => [
          o.operation,
          o.cold ? `${o.cold.ddbCalls} (${o.cold.reads}) / ${n(o.cold.rru, 2)} / ${n(o.cold.wru, 2)}` : '–',
          o.cold ? `${o.cold.kmsCalls}${Object.keys(o.cold.kms).length ? ` (${Object.entries(o.cold.kms).map(([k, v]) => `${v} ${k}`).join(', ')})` : ''}` : '–',
          o.warm ? `${n(o.warm.ddbCalls, 4)} (${n(o.warm.reads, 4)}) / ${n(o.warm.rru, 4)} / ${n(o.warm.wru, 2)} over ${o.warm.requests}` : '–',
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
    out.push(table(['item', 'basis', 'USD per million'], [...c.lines.map((l) => [l.item, l.basis, `$${l.usdPerMillion.toFixed(4)}`]), ['**total**', '', `**$${c.totalUsdPerMillion.toFixed(3)}**`]]));
    out.push('');
    out.push(`With an HTTP API instead of the REST API: $${c.totalWithHttpApiUsd.toFixed(3)}. kms-sign mode would add $${c.kmsSignModeExtraUsd.toFixed(2)} (one KMS Sign per token).`);
    out.push('');
    out.push('Assumptions:');
    out.push('');
    for (const a of c.assumptions) out.push(`- ${a}`);
  }
  out.push('');
  if (r.errors.length) {
    out.push('## Errors');
    out.push('');
    for (const e of r.errors) out.push(`- ${e.section}: ${e.message.replace(/\n/g, ' ').slice(0, 500)}`);
    out.push('');
  }
  return out.join('\n');
}
