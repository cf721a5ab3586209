/**
 * The two hot paths in process, for one or more source trees in the same process (bench/ab.ts
 * compares a change with its base this way): the token handler (client_credentials, warm
 * container) and `/introspect` over more distinct tokens than every cache of the container holds.
 * Each tree gets its own in-process stack (own modules, own runtime and caches, own table on the
 * shared DynamoDB Local); the measurement alternates short slices between the trees (A B, B A,
 * ...), so a busy moment of the shared machine lands on every tree alike.
 *
 * Usage: node --import tsx bench/probes/hot-path.ts <json options>; the result (JSON) goes to
 * `options.out`; the handlers' log lines go to stdout, which the caller sends to /dev/null.
 */
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { processCpuSeconds, selfCpuSeconds } from '../lib/cpu.ts';
import { syncOpsPerSecond } from '../lib/loop.ts';

interface Options {
  roots: string[];
  out: string;
  dynamodbEndpoint: string;
  /** DynamoDB Local's process, whose CPU during the runs is reported per request. */
  dynamodbPid: number;
  /** Slices per path and tree, and each slice's length. */
  slices: number;
  sliceMs: number;
  pool: number;
  clientId: string;
  clientSecret: string;
  /** The paths to measure; default token and introspect. `refresh`: a chain of refresh grants. */
  paths?: Path[];
}
type Path = 'token' | 'introspect' | 'refresh';

const o = JSON.parse(process.argv[2]!) as Options;
const paths: Path[] = o.paths ?? ['token', 'introspect'];
type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;

/** One tree's stack and its two measured calls. */
async function setUp(root: string, n: number) {
  // Every module of the service and the bench's event builders come from `root`.
  const from = async <T>(path: string) => (await import(pathToFileURL(join(root, path)).href)) as T;
  const { startLocalStack } = await from<typeof import('../../infra/local/local-stack.ts')>('infra/local/local-stack.ts');
  const { runWithRuntime } = await from<typeof import('#shared/runtime.ts')>('shared/runtime.ts');
  const { proxyEvent, lambdaContext, basicAuth, FORM } = await from<typeof import('../lib/api-event.ts')>('bench/lib/api-event.ts');
  const { prepareOurClient } = await from<typeof import('../lib/fixture.ts')>('bench/lib/fixture.ts');
  const { attachDdbMeter } = await from<typeof import('../lib/ddb-meter.ts')>('bench/lib/ddb-meter.ts');
  const { UNTHROTTLED } = await from<typeof import('../lib/throttles.ts')>('bench/lib/throttles.ts');
  const stack = await startLocalStack({
    port: 0,
    dataDir: null,
    dynamodbEndpoint: o.dynamodbEndpoint,
    tableName: `hot-path-${process.pid}-${n}`,
    stageThrottle: UNTHROTTLED,
    defaultClientId: o.clientId,
    defaultClientSecret: o.clientSecret,
  });
  const runtime = stack.runtime;
  const meter = attachDdbMeter(runtime.db);
  const fixture = await prepareOurClient(stack.url, {
    clientId: o.clientId,
    clientSecret: o.clientSecret,
    managementAudience: runtime.config.managementAudience,
  });
  const auth = basicAuth(fixture.clientId, fixture.clientSecret);
  const { handler: token } = await from<{ handler: Handler }>('functions/oauth/token.ts');
  const { handler: introspect } = await from<{ handler: Handler }>('functions/oauth/introspect.ts');
  const body = new URLSearchParams({ grant_type: 'client_credentials', resource: fixture.resource, scope: fixture.scope }).toString();
  // A fresh event and context per call, as each invocation gets; building them is timed alone and taken out.
  const tokenEvent = () => proxyEvent({ method: 'POST', resource: '/token', headers: { Authorization: auth, 'Content-Type': FORM }, body });
  const issue = async () => {
    const r = await runWithRuntime(runtime, () => token(tokenEvent(), lambdaContext('functions/oauth/token', 1024)));
    if (r.statusCode !== 200) throw new Error(`/token: ${r.statusCode} ${r.body?.slice(0, 300)}`);
    return r;
  };
  const pool: string[] = [];
  for (let i = 0; i < (paths.includes('introspect') ? o.pool : 0); i++)
    pool.push((JSON.parse((await issue()).body!) as { access_token: string }).access_token);
  const bodies = pool.map((t) => new URLSearchParams({ token: t }).toString());
  let next = 0;
  const introspectOne = async () => {
    const b = bodies[next++ % bodies.length]!;
    const event = proxyEvent({ method: 'POST', resource: '/introspect', headers: { Authorization: auth, 'Content-Type': FORM }, body: b });
    const r = await runWithRuntime(runtime, () => introspect(event, lambdaContext('functions/oauth/introspect', 512)));
    if (r.statusCode !== 200 || !r.body?.includes('"active":true'))
      throw new Error(`/introspect: ${r.statusCode} ${r.body?.slice(0, 300)}`);
  };
  for (let i = 0; i < bodies.length; i++) await introspectOne(); // one lap: from now on every token is evicted when it comes back
  const eventRate = syncOpsPerSecond(() => [tokenEvent(), lambdaContext('functions/oauth/token', 1024)], 0.5);
  const refreshOne = paths.includes('refresh') ? await refreshChain(root, stack.url, runtime, token) : async () => {};
  return { root, stack, meter, issue, introspectOne, refreshOne, eventUs: 1e6 / eventRate.perCpuSec, source: fixture.source };
}

/**
 * A chain of refresh grants through the token handler (each request presents the token the one
 * before returned), for a client and user made through the management API
 * (bench/sections/user-flows.ts `prepareUserFixture`) and a first password grant.
 */
async function refreshChain(root: string, url: string, runtime: { config: { managementAudience: string } }, token: Handler) {
  const from = async <T>(path: string) => (await import(pathToFileURL(join(root, path)).href)) as T;
  const { runWithRuntime } = await from<typeof import('#shared/runtime.ts')>('shared/runtime.ts');
  const { proxyEvent, lambdaContext, basicAuth, FORM } = await from<typeof import('../lib/api-event.ts')>('bench/lib/api-event.ts');
  const { prepareUserFixture } = await from<typeof import('../sections/user-flows.ts')>('bench/sections/user-flows.ts');
  const f = await prepareUserFixture(
    {
      name: 'ours',
      url,
      procs: { pid: process.pid },
      admin: { clientId: o.clientId, clientSecret: o.clientSecret, managementAudience: runtime.config.managementAudience },
    },
    'ab',
  );
  const auth = basicAuth(f.clientId, f.clientSecret);
  const call = async (body: string) => {
    const event = proxyEvent({ method: 'POST', resource: '/token', headers: { Authorization: auth, 'Content-Type': FORM }, body });
    const r = await runWithRuntime(runtime as never, () => token(event, lambdaContext('functions/oauth/token', 1024)));
    if (r.statusCode !== 200) throw new Error(`/token (refresh chain): ${r.statusCode} ${r.body?.slice(0, 300)}`);
    return JSON.parse(r.body!) as { refresh_token?: string };
  };
  let rt = (
    await call(
      new URLSearchParams({
        grant_type: 'password',
        username: f.username,
        password: f.password,
        scope: 'openid offline_access',
      }).toString(),
    )
  ).refresh_token;
  return async () => {
    rt = (await call(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: rt! }).toString())).refresh_token;
  };
}

interface Tally {
  count: number;
  cpu: number;
  ddbCpu: number;
  ddbCalls: number;
  byCommand: Record<string, number>;
}
const tally = (): Tally => ({ count: 0, cpu: 0, ddbCpu: 0, ddbCalls: 0, byCommand: {} });

const trees: Awaited<ReturnType<typeof setUp>>[] = [];
for (const [n, root] of o.roots.entries()) trees.push(await setUp(root, n));
try {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const input = Buffer.from('e'.repeat(300));
  const sig = sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const signRate = syncOpsPerSecond(() => sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' }), 1);
  const verifyRate = syncOpsPerSecond(() => verify('sha256', input, { key: publicKey, dsaEncoding: 'ieee-p1363' }, sig), 1);

  const tallies = trees.map(() => ({ token: tally(), introspect: tally(), refresh: tally() }));
  const calls = { token: 'issue', introspect: 'introspectOne', refresh: 'refreshOne' } as const;
  const slice = async (t: (typeof trees)[number], call: () => Promise<unknown>, into: Tally) => {
    const m0 = t.meter.snapshot();
    const d0 = processCpuSeconds(o.dynamodbPid);
    const c0 = selfCpuSeconds();
    const end = performance.now() + o.sliceMs;
    let count = 0;
    while (performance.now() < end) {
      for (let i = 0; i < 8; i++) await call();
      count += 8;
    }
    into.cpu += selfCpuSeconds() - c0;
    into.ddbCpu += processCpuSeconds(o.dynamodbPid) - d0;
    into.count += count;
    const used = t.meter.since(m0);
    into.ddbCalls += used.calls;
    for (const [k, v] of Object.entries(used.byCommand)) into.byCommand[k] = (into.byCommand[k] ?? 0) + Number(v);
  };
  // Warm-up: one slice of each, not counted.
  for (const t of trees) for (const p of paths) await slice(t, t[calls[p]], tally());
  for (let s = 0; s < o.slices; s++) {
    const order = s % 2 === 0 ? trees.map((_, i) => i) : trees.map((_, i) => trees.length - 1 - i);
    for (const p of paths) for (const i of order) await slice(trees[i]!, trees[i]![calls[p]], tallies[i]![p]);
  }
  const r1 = (x: number) => Math.round(x * 10) / 10;
  writeFileSync(
    o.out,
    JSON.stringify({
      es256SignUs: r1(1e6 / signRate.perCpuSec),
      es256VerifyUs: r1(1e6 / verifyRate.perCpuSec),
      trees: trees.map((t, i) => {
        const { token: tk, introspect: ti, refresh: tr } = tallies[i]!;
        return {
          root: t.root,
          fixture: t.source,
          eventUs: r1(t.eventUs),
          tokenUs: r1((tk.cpu / tk.count) * 1e6 - t.eventUs),
          tokens: tk.count,
          tokenDdbCallsPerRequest: Math.round((tk.ddbCalls / tk.count) * 1000) / 1000,
          introspectUs: r1((ti.cpu / ti.count) * 1e6 - t.eventUs),
          introspectDdbLocalUs: r1((ti.ddbCpu / ti.count) * 1e6),
          introspectDdbCallsPerRequest: Math.round((ti.ddbCalls / ti.count) * 1000) / 1000,
          introspectDdbByCommand: ti.byCommand,
          introspections: ti.count,
          refreshUs: r1((tr.cpu / tr.count) * 1e6 - t.eventUs),
          refreshDdbLocalUs: r1((tr.ddbCpu / tr.count) * 1e6),
          refreshDdbCallsPerRequest: Math.round((tr.ddbCalls / tr.count) * 1000) / 1000,
          refreshDdbByCommand: Object.fromEntries(
            Object.entries(tr.byCommand).map(([k, v]) => [k, Math.round((v / tr.count) * 1000) / 1000]),
          ),
          refreshes: tr.count,
        };
      }),
    }),
  );
} finally {
  for (const t of trees) await t.stack.stop();
}
process.exit(0);
