/**
 * What metrics and traces cost per token (docs/benchmarks.md "Metrics and traces: the cost per
 * token"): the token handler (client_credentials, warm container) in one process, with runtimes
 * that differ only in their metrics and tracing, alternating short slices between them (A B C D,
 * D C B A, ...) so a busy moment of the shared machine lands on each alike:
 * - `off`: nothing counted (as locally);
 * - `emfEach`: Powertools EMF published at the end of every invocation (METRICS_PUBLISH_SECONDS=0);
 * - `emfHeld`: counted in the container, published once a minute (the default, 60 s);
 * - `tracer`: `emfHeld` plus Powertools Tracer (the handler's subsegment, the DynamoDB client captured).
 * The process is made to look like Lambda for the X-Ray SDK (the variables Lambda sets, a fresh
 * trace id per invocation), and a UDP socket stands in for the X-Ray daemon. What the handler
 * writes to stdout is counted per variant and dropped.
 *
 * Usage: node --import tsx bench/probes/observability-cost.ts '<json options>'; the result (JSON)
 * goes to `options.out`.
 */
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfCpuSeconds } from '../lib/cpu.ts';
import { syncOpsPerSecond } from '../lib/loop.ts';
import { median } from '../lib/stats.ts';

interface Options {
  out: string;
  dynamodbEndpoint: string;
  clientId: string;
  clientSecret: string;
  /** Rounds; each runs one slice of every variant. */
  slices: number;
  sliceMs: number;
}
const o = JSON.parse(process.argv[2]!) as Options;

const sink = createSocket('udp4');
let xrayDatagrams = 0;
sink.on('message', () => xrayDatagrams++);
await new Promise<void>((resolve) => sink.bind(0, '127.0.0.1', resolve));
const traceId = () =>
  `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')};Parent=${randomBytes(8).toString('hex')};Sampled=1`;
Object.assign(process.env, {
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  LAMBDA_TASK_ROOT: mkdtempSync(join(tmpdir(), 'task-root-')),
  _HANDLER: 'index.handler',
  _X_AMZN_TRACE_ID: traceId(),
  AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${sink.address().port}`,
  AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
});

const { startLocalStack } = await import('../../infra/local/local-stack.ts');
const { createRuntime, runWithRuntime } = await import('#shared/runtime.ts');
const { emfMetrics, NO_METRICS } = await import('#shared/observability/service-metrics.ts');
const { functionTracing } = await import('#shared/observability/sdk-tracing.ts');
const { proxyEvent, lambdaContext, basicAuth, FORM } = await import('../lib/api-event.ts');
const { prepareOurClient } = await import('../lib/fixture.ts');
const { UNTHROTTLED } = await import('../lib/throttles.ts');
const { handler: token } = (await import('../../functions/oauth/token.ts')) as unknown as {
  handler: (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;
};

const stack = await startLocalStack({
  port: 0,
  dataDir: null,
  dynamodbEndpoint: o.dynamodbEndpoint,
  tableName: `obs-cost-${process.pid}`,
  stageThrottle: UNTHROTTLED,
  defaultClientId: o.clientId,
  defaultClientSecret: o.clientSecret,
});
const fixture = await prepareOurClient(stack.url, {
  clientId: o.clientId,
  clientSecret: o.clientSecret,
  managementAudience: stack.runtime.config.managementAudience,
});
const config = stack.runtime.config;
const emf = (publishIntervalMs: number) =>
  emfMetrics({ namespace: 'IdentityService/bench', serviceName: 'identity-service', publishIntervalMs });
const variants = {
  off: createRuntime(config, { db: stack.runtime.db, metrics: NO_METRICS }),
  emfEach: createRuntime(config, { db: stack.runtime.db, metrics: emf(0) }),
  emfHeld: createRuntime(config, { db: stack.runtime.db, metrics: emf(60_000) }),
  // Its own DynamoDB client, captured by the Tracer.
  tracer: createRuntime(config, { metrics: emf(60_000), tracing: functionTracing('identity-service') }),
};
type Variant = keyof typeof variants;
const names = Object.keys(variants) as Variant[];

const auth = basicAuth(fixture.clientId, fixture.clientSecret);
const body = new URLSearchParams({ grant_type: 'client_credentials', resource: fixture.resource, scope: fixture.scope }).toString();
const tokenEvent = () => proxyEvent({ method: 'POST', resource: '/token', headers: { Authorization: auth, 'Content-Type': FORM }, body });
// What Lambda does per invocation besides our handler: a fresh event, context and trace id.
const invocationInput = () => {
  process.env._X_AMZN_TRACE_ID = traceId();
  return [tokenEvent(), lambdaContext('functions/oauth/token', 1024)] as const;
};
const issue = async (v: Variant) => {
  const [event, context] = invocationInput();
  const r = await runWithRuntime(variants[v], () => token(event, context));
  if (r.statusCode !== 200) throw new Error(`/token (${v}): ${r.statusCode} ${r.body?.slice(0, 300)}`);
};

// Handler output is counted per variant, never printed.
let stdoutBytes = 0;
process.stdout.write = ((chunk: string | Uint8Array) => {
  stdoutBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
  return true;
}) as typeof process.stdout.write;

const tally = Object.fromEntries(names.map((n) => [n, { cpu: 0, count: 0, bytes: 0, perRound: [] as number[] }])) as Record<
  Variant,
  { cpu: number; count: number; bytes: number; perRound: number[] }
>;
const slice = async (v: Variant, counted: boolean) => {
  const b0 = stdoutBytes;
  const c0 = selfCpuSeconds();
  const end = performance.now() + o.sliceMs;
  let count = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 8; i++) await issue(v);
    count += 8;
  }
  const cpu = selfCpuSeconds() - c0;
  if (!counted) return;
  const t = tally[v];
  t.cpu += cpu;
  t.count += count;
  t.bytes += stdoutBytes - b0;
  t.perRound.push((cpu / count) * 1e6);
};

for (const v of names) await slice(v, false); // warm-up: caches filled, cold start published
for (let s = 0; s < o.slices; s++) {
  const order = s % 2 === 0 ? names : [...names].reverse();
  for (const v of order) await slice(v, true);
}
const inputRate = syncOpsPerSecond(() => invocationInput(), 0.5);
const inputUs = 1e6 / inputRate.perCpuSec;
const r1 = (x: number) => Math.round(x * 10) / 10;
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const ratios = (v: Variant) => tally[v].perRound.map((us, i) => (us - inputUs) / (tally.off.perRound[i]! - inputUs));
const result = {
  inputUs: r1(inputUs),
  xrayDatagrams,
  variants: Object.fromEntries(
    names.map((v) => {
      const t = tally[v];
      const rs = ratios(v);
      return [
        v,
        {
          tokens: t.count,
          usPerToken: r1((t.cpu / t.count) * 1e6 - inputUs),
          stdoutBytesPerToken: r1(t.bytes / t.count),
          ratioToOff: { median: r3(median(rs)), min: r3(Math.min(...rs)), max: r3(Math.max(...rs)) },
        },
      ];
    }),
  ),
};
writeFileSync(o.out, JSON.stringify(result, null, 2));
await stack.stop();
sink.close();
process.exit(0);
