/**
 * `node --import tsx bench/token-exchange.ts [--rounds=N] [--algs=ES256,RS256]` (`npm run bench:exchange`):
 * what a token exchange of a provider's ID token (docs/federation.md "Token exchange", RFC 8693) costs
 * next to a client_credentials token, on the local service over HTTP, one request at a time.
 *
 * The stack (DynamoDB Local in memory, local key mode, STAGE local so a loopback provider is allowed)
 * and one real OpenID provider per signing algorithm (test/support/oauth/external-provider.ts) run in
 * this process. The providers and the exchanging client are created through the management API.
 *
 * Measured, interleaved in rounds (one request of each kind per round, the order reversed every other
 * round) so a change of load on a shared machine shifts every kind alike:
 * - CPU of this process per request (`process.cpuUsage`: our server, the HTTP client and the
 *   provider; DynamoDB Local's JVM is another process and not counted) and wall latency, for a
 *   client_credentials token (the baseline), the exchange of a known user's ID token, and an
 *   exchange that creates a new user each time. The ID tokens are minted before the clock starts;
 * - the ratio exchanges per CPU-second ÷ client_credentials tokens per CPU-second (ratios, because
 *   absolute times move with the machine's load);
 * - DynamoDB calls per request (bench/lib/ddb-meter.ts): the first exchange after start (cold
 *   container), the first with each further provider, and every warm request;
 * - the providers' discovery and JWKS requests over the whole run, from their own request logs
 *   (one each per container is the design: docs/federation.md "Cost").
 */
import { execSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { startLocalStack } from '../infra/local/local-stack.ts';
import { type ExternalProvider, type ProviderAlg, startExternalProvider } from '../test/support/oauth/external-provider.ts';
import { basicAuth, FORM } from './lib/api-event.ts';
import { attachDdbMeter, type DdbUsage } from './lib/ddb-meter.ts';
import { logsToDevNull } from './lib/logs-to-dev-null.ts';
import { median, percentile, round } from './lib/stats.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const rounds = Number(arg('rounds') ?? 60);
const algs = (arg('algs') ?? 'ES256,RS256').split(',') as ProviderAlg[];
const WARMUP = 5;
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

const load0 = loadavg();
const report = logsToDevNull();
const adminId = randomUUID();
const adminSecret = randomBytes(32).toString('base64url');
const stack = await startLocalStack({
  port: 0,
  dataDir: null,
  tableName: `bench-exchange-${randomUUID()}`,
  stageThrottle: { rateLimit: 100_000, burstLimit: 100_000 },
  routeThrottles: 'stage-only',
  defaultClientId: adminId,
  defaultClientSecret: adminSecret,
  env: {},
});
const meter = attachDdbMeter(stack.runtime.db);
const management = `${stack.url}/identity/v1`;

interface Side {
  alg: ProviderAlg;
  provider: ExternalProvider;
  name: string;
  knownSub: string;
}
const sides: Side[] = [];

try {
  for (const alg of algs) {
    sides.push({ alg, provider: await startExternalProvider({ alg }), name: `bench-${alg.toLowerCase()}`, knownSub: `known-${alg}` });
  }
  const admin = await token(adminId, adminSecret, {
    grant_type: 'client_credentials',
    audience: `${management}/`,
    scope: 'create:clients create:identity_providers',
  });
  const auth = { authorization: `Bearer ${String(admin.body.access_token)}`, 'content-type': 'application/json' };
  for (const s of sides) {
    const res = await fetch(`${management}/tenants/${DEFAULT_TENANT_ID}/identity-providers`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ provider_name: s.name, provider_type: 'oidc', issuer: s.provider.issuer, client_id: s.provider.clientId }),
    });
    if (res.status !== 201) throw new Error(`POST identity-providers: ${res.status} ${await res.text()}`);
  }
  // Confidential, like the Default Client of the baseline: both kinds of request pay a client authentication.
  const created = await fetch(`${management}/clients`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ client_name: 'bench exchange', client_metadata: { grant_types: ['token_exchange'] } }),
  });
  if (created.status !== 201) throw new Error(`POST /clients: ${created.status} ${await created.text()}`);
  const app = (await created.json()) as { id: string; client_secret: string };

  let fresh = 0;
  const mint = (s: Side, sub: string) => s.provider.mintIdToken({ sub, email: `${sub}@bench.example`, email_verified: true });
  const newSub = (s: Side) => `new-${s.alg}-${++fresh}-${randomUUID().slice(0, 8)}`;
  const clientCredentials = () =>
    token(adminId, adminSecret, { grant_type: 'client_credentials', audience: `${management}/`, scope: 'read:clients' });
  const twoReads = async (): Promise<Answer> => {
    for (let i = 0; i < 2; i++) {
      await stack.runtime.db.send(
        new GetCommand({ TableName: stack.tableName, Key: { PK: `BENCH#${i}`, SK: 'NONE' }, ConsistentRead: true }),
      );
    }
    return { status: 200, body: {} };
  };
  const exchange = (s: Side, idToken: string) =>
    token(app.id, app.client_secret, { grant_type: EXCHANGE, subject_token_type: s.name, subject_token: idToken, scope: 'openid' });

  // The first exchange with each provider (the first overall is the container's first): discovery,
  // JWKS, the provider's record and the client, all read once here. It creates the known user.
  const firsts: { label: string; sample: Sample }[] = [];
  for (const [i, s] of sides.entries()) {
    const idToken = await mint(s, s.knownSub);
    firsts.push({
      label: i === 0 ? `cold: first exchange after start (${s.alg}, new user)` : `first exchange with the ${s.alg} provider (new user)`,
      sample: await measure(() => exchange(s, idToken)),
    });
  }

  // Warm-up: caches, keys, JIT, DynamoDB Local's compiled paths.
  for (let i = 0; i < WARMUP; i++) {
    await measure(clientCredentials);
    for (const s of sides) {
      await measure(async () => exchange(s, await mint(s, s.knownSub)), true);
      await measure(async () => exchange(s, await mint(s, newSub(s))), true);
    }
  }

  interface Kind {
    label: string;
    prepare: () => Promise<() => Promise<Answer>>;
    samples: Sample[];
  }
  const kinds: Kind[] = [
    { label: 'client_credentials token (baseline)', prepare: async () => clientCredentials, samples: [] },
    ...sides.flatMap((s) => [
      {
        label: `exchange, known user (${s.alg})`,
        prepare: async () => {
          const idToken = await mint(s, s.knownSub);
          return () => exchange(s, idToken);
        },
        samples: [],
      },
      {
        label: `exchange, new user each time (${s.alg})`,
        prepare: async () => {
          const idToken = await mint(s, newSub(s));
          return () => exchange(s, idToken);
        },
        samples: [],
      },
    ]),
    // What two of the exchange's reads cost this process by themselves: the SDK's share of its CPU.
    { label: 'reference: two GetItem calls alone (SDK in process, no HTTP)', prepare: async () => twoReads, samples: [] },
  ];
  const started = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const k of r % 2 === 0 ? kinds : [...kinds].reverse()) {
      const request = await k.prepare();
      k.samples.push(await measure(request));
    }
  }
  const runSeconds = (performance.now() - started) / 1000;
  const load1 = loadavg();

  // ---- report -------------------------------------------------------------------------------------
  const base = kinds[0]!.samples;
  const cpuMedian = (xs: Sample[]) => median(xs.map((x) => x.cpuMs));
  const out: string[] = [];
  const commit = execSync('git rev-parse --short HEAD').toString().trim();
  const dirty = execSync('git status --porcelain --untracked-files=no').toString().trim() !== '';
  out.push(
    `token exchange vs client_credentials: ${rounds} rounds, one request of each kind per round, one at a time, ` +
      `${round(runSeconds)} s; commit ${commit}${dirty ? ' (tree with uncommitted changes)' : ''}; node ${process.version}; ` +
      `load average ${load0.map((l) => l.toFixed(1)).join(' ')} before, ${load1.map((l) => l.toFixed(1)).join(' ')} after`,
    '',
    '| request | CPU ms median | CPU ms p90 | per CPU-second | ÷ client_credentials per CPU-second (median of round ratios) | wall ms median | wall ms p90 | DynamoDB calls (reads + writes) | RCU + WCU |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const k of kinds) {
    const cpu = k.samples.map((x) => x.cpuMs);
    const wall = k.samples.map((x) => x.wallMs);
    const ratio = round(cpuMedian(base) / median(cpu));
    const roundRatios = k.samples.map((x, i) => base[i]!.cpuMs / x.cpuMs);
    out.push(
      `| ${k.label} | ${round(median(cpu))} | ${round(percentile(cpu, 90))} | ${Math.round(1000 / median(cpu))} | ` +
        `${k === kinds[0] ? '1' : `**${ratio}×** (${round(median(roundRatios))}×)`} | ${round(median(wall))} | ${round(percentile(wall, 90))} | ` +
        `${callsOf(k.samples)} | ${capacityOf(k.samples)} |`,
    );
  }
  out.push('', '| first requests | CPU ms | wall ms | DynamoDB calls | by command |', '|---|---|---|---|---|');
  for (const f of firsts) {
    const u = f.sample.usage;
    out.push(
      `| ${f.label} | ${round(f.sample.cpuMs)} | ${round(f.sample.wallMs)} | ${u.calls} (${u.reads} + ${u.writes}) | ${commands(u)} |`,
    );
  }
  const exchanges =
    kinds.filter((k) => k.label.startsWith('exchange')).reduce((a, k) => a + k.samples.length, 0) + sides.length * (1 + 2 * WARMUP);
  out.push('', `| provider | exchanges over the run | discovery requests | JWKS requests |`, '|---|---|---|---|');
  for (const s of sides) {
    const paths = s.provider.requests;
    const perProvider = exchanges / sides.length;
    out.push(
      `| ${s.alg} | ${perProvider} | ${paths.filter((p) => p === '/.well-known/openid-configuration').length} | ${paths.filter((p) => p === '/jwks').length} |`,
    );
  }
  out.push('', 'Warm DynamoDB calls by command (the median request of each kind; the one with the most calls):');
  for (const k of kinds) {
    const sorted = [...k.samples].sort((a, b) => a.usage.calls - b.usage.calls);
    const most = sorted.filter((x) => x.usage.calls === sorted.at(-1)!.usage.calls).length;
    out.push(
      `- ${k.label}: ${commands(sorted[Math.floor(sorted.length / 2)]!.usage)}; most: ${commands(sorted.at(-1)!.usage)} (${most} of ${sorted.length})`,
    );
  }
  report(`${out.join('\n')}\n`);
} finally {
  for (const s of sides) await s.provider.stop();
  await stack.stop();
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}
interface Sample {
  cpuMs: number;
  wallMs: number;
  usage: DdbUsage;
}

/** One request: this process's CPU, wall time and DynamoDB calls; anything but 200 ends the run. */
async function measure(request: () => Promise<Answer>, untimed = false): Promise<Sample> {
  const calls = meter.snapshot();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const res = await request();
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status} ${JSON.stringify(res.body)}`);
  return { cpuMs: untimed ? Number.NaN : (used.user + used.system) / 1000, wallMs, usage: meter.since(calls) };
}

async function token(id: string, secret: string, params: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${stack.url}/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(id, secret), 'content-type': FORM },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The calls of a kind's requests: one figure when every request made the same number, else min–max. */
function callsOf(samples: Sample[]): string {
  const calls = samples.map((x) => x.usage.calls);
  const lo = Math.min(...calls);
  const hi = Math.max(...calls);
  const mid = samples.find((x) => x.usage.calls === median(calls))!.usage;
  return `${lo === hi ? lo : `${median(calls)} (${lo}–${hi})`} (${mid.reads} + ${mid.writes})`;
}

function capacityOf(samples: Sample[]): string {
  return `${round(median(samples.map((x) => x.usage.rcu)))} + ${round(median(samples.map((x) => x.usage.wcu)))}`;
}

function commands(u: DdbUsage): string {
  if (u.calls === 0) return 'none';
  return Object.entries(u.byCommand)
    .map(([name, n]) => `${name.replace(/Command$/, '')} ${n}`)
    .join(', ');
}
