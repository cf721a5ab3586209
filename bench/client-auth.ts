/**
 * `node --import tsx bench/client-auth.ts [--rounds=300] [--blocks=10] [--warmup=200]` (`npm run bench:client-auth`):
 * what key-based client authentication (private_key_jwt, RFC 7523 §2.2) and sender-constrained tokens
 * (DPoP, RFC 9449) cost next to a plain client_credentials token, on the local service over HTTP, one
 * request at a time (docs/client-authentication.md, docs/benchmarks.md "Client authentication and DPoP").
 *
 * The stack (DynamoDB Local in memory, local key mode) runs in this process like bench/token-exchange.ts.
 * Four confidential clients, made through the management API and linked to one Resource with one scope,
 * each get client_credentials tokens for it:
 * (a) client_secret_basic (the baseline); (b) private_key_jwt with inline `jwks`, a fresh assertion per
 * request; (c) client_secret_basic with `dpop_bound_access_tokens`, a fresh DPoP proof per request, with
 * the server's `DPoP-Nonce` (RFC 9449 §8) taken from every answer and a `use_dpop_nonce` answered once
 * with a new proof; (d) private_key_jwt and DPoP together. Assertions and proofs are signed (ES256)
 * before the clock starts, as a client would have them ready; a retry after `use_dpop_nonce` signs its
 * proof inside the measured request (the client's real extra cost), and the retries are counted.
 *
 * Measured, interleaved in rounds (one request of each kind per round, the order reversed every other
 * round) so a change of load on a shared machine shifts every kind alike:
 * - CPU per token with the database counted: this process's (`process.cpuUsage`: our server and the
 *   HTTP client) plus the DynamoDB Local JVM's, read from the scheduler's per-thread run time
 *   (/proc/<pid>/task/<tid>/schedstat, nanoseconds: the 10 ms ticks of /proc/<pid>/stat cannot
 *   resolve one request's PutItem) outside this process's window so the reading costs nothing to it;
 * - the ratio tokens per CPU-second ÷ (a)'s, from the sums of each block of rounds (the rounds split
 *   into `--blocks` consecutive blocks): median and min–max over the blocks;
 * - DynamoDB calls per token by operation (bench/lib/ddb-meter.ts): the mean over the run, and the
 *   most one request made. The target is none beyond the one `jti` write per assertion or proof.
 * A kind whose feature is not on this server (the answer is not the token it asks for) prints "not
 * available" and is left out of the rounds.
 */
import { execSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { type CryptoKey, createLocalJWKSet, exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import { oneTimeIdsRepository } from '#shared/store/sessions/one-time-ids-repository.ts';
import { startLocalStack } from '../infra/local/local-stack.ts';
import { basicAuth, FORM } from './lib/api-event.ts';
import { jvmCpuSecondsOf } from './lib/cpu.ts';
import { attachDdbMeter, type DdbUsage, emptyUsage } from './lib/ddb-meter.ts';
import { logsToDevNull } from './lib/logs-to-dev-null.ts';
import { median, percentile, round } from './lib/stats.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const rounds = Number(arg('rounds') ?? 300);
const blockCount = Math.max(1, Math.min(rounds, Number(arg('blocks') ?? 10)));
// DynamoDB Local's JIT compiles the conditional PutItem's path over its first few hundred calls
// (docs/benchmarks.md "Password grant: the database's JIT"): the warm-up gives it those calls.
const warmup = Number(arg('warmup') ?? 200);
const ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

const load0 = loadavg();
const report = logsToDevNull();
const adminId = randomUUID();
const adminSecret = randomBytes(32).toString('base64url');
const stack = await startLocalStack({
  port: 0,
  dataDir: null,
  tableName: `bench-client-auth-${randomUUID()}`,
  stageThrottle: { rateLimit: 100_000, burstLimit: 100_000 },
  routeThrottles: 'stage-only',
  defaultClientId: adminId,
  defaultClientSecret: adminSecret,
  env: {},
});
const meter = attachDdbMeter(stack.runtime.db);
const management = `${stack.url}/identity/v1`;
const jvmPid = stack.dynamodbLocal?.pid;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  nonce: string | null;
}
interface Sample {
  /** This process's CPU, and the DynamoDB Local JVM's over the same request. */
  cpuMs: number;
  dbMs: number;
  wallMs: number;
  usage: DdbUsage;
  nonceRetries: number;
}
interface Client {
  id: string;
  secret: string;
  key?: CryptoKey;
  kid?: string;
  jwks?: { keys: JWK[] };
}
interface Kind {
  label: string;
  /** Signs what the request needs (outside the clock) and returns the request. */
  prepare: () => Promise<() => Promise<Answer & { retries: number }>>;
  /** What the answer must be for the kind's feature to be on this server. */
  accepts: (a: Answer) => boolean;
  available: boolean;
  why: string;
  samples: Sample[];
}

try {
  const discovery = (await (await fetch(`${stack.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  const issuer = String(discovery.issuer);
  const tokenEndpoint = String(discovery.token_endpoint);
  const admin = await post(
    tokenEndpoint,
    { authorization: basicAuth(adminId, adminSecret) },
    {
      grant_type: 'client_credentials',
      audience: `${management}/`,
    },
  );
  const auth = { authorization: `Bearer ${String(admin.body.access_token)}`, 'content-type': 'application/json' };
  const api = async (path: string, body: unknown, expected: number) => {
    const res = await fetch(`${management}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    if (res.status !== expected) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
  };

  // One Resource with one scope, granted to every client: the four tokens carry the same claims.
  const audience = `https://bench-${randomUUID()}.example.com/`;
  const resource = await api(
    '/resources',
    { resource_type: 'api', resource_name: 'bench client auth', resource_metadata: { identifier_url: audience } },
    201,
  );
  const scope = await api(`/resources/${String(resource.id)}/scopes`, { scope_name: 'read:bench' }, 201);
  const makeClient = async (name: string, metadata: Record<string, unknown>, keyed: boolean): Promise<Client> => {
    let key: CryptoKey | undefined;
    let kid: string | undefined;
    if (keyed) {
      const pair = await generateKeyPair('ES256');
      key = pair.privateKey;
      kid = `bench-${name}`;
      const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' };
      metadata = { ...metadata, jwks: { keys: [jwk] } };
    }
    const created = await api(
      '/clients',
      { client_name: `bench ${name}`, client_metadata: { grant_types: ['client_credentials'], ...metadata } },
      201,
    );
    const id = String(created.id);
    await api(`/clients/${id}/resources`, { resources: [resource.id] }, 204);
    await api(`/clients/${id}/permissions`, { permissions: [{ resource_id: resource.id, scopes: [scope.id] }] }, 204);
    return { id, secret: String(created.client_secret), ...(key && kid ? { key, kid, jwks: metadata.jwks as { keys: JWK[] } } : {}) };
  };
  const plain = await makeClient('plain', { token_endpoint_auth_method: 'client_secret_basic' }, false);
  const keyed = await makeClient('pkjwt', { token_endpoint_auth_method: 'private_key_jwt' }, true);
  const dpop = await makeClient('dpop', { token_endpoint_auth_method: 'client_secret_basic', dpop_bound_access_tokens: true }, false);
  const both = await makeClient('pkjwt-dpop', { token_endpoint_auth_method: 'private_key_jwt', dpop_bound_access_tokens: true }, true);

  /** RFC 7523 §3: iss = sub = the client, aud = our issuer (as openid-client sends it), a short exp, a unique jti. */
  const assertion = (c: Client) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: c.kid! })
      .setIssuer(c.id)
      .setSubject(c.id)
      .setAudience(issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .setJti(randomUUID())
      .sign(c.key!);
  };
  // One DPoP key per DPoP client, as a client keeps one key for its tokens (RFC 9449 §4.2).
  const dpopKey = async () => {
    const pair = await generateKeyPair('ES256');
    return { privateKey: pair.privateKey, jwk: await exportJWK(pair.publicKey) };
  };
  const dpopKeys = new Map([
    [dpop.id, await dpopKey()],
    [both.id, await dpopKey()],
  ]);
  let nonce: string | null = null;
  /** RFC 9449 §4.2: typ dpop+jwt, the public key in the header, htm, htu, iat, jti, and the server's nonce. */
  const proof = (c: Client) => {
    const k = dpopKeys.get(c.id)!;
    return new SignJWT({ htm: 'POST', htu: tokenEndpoint, ...(nonce ? { nonce } : {}) })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: k.jwk })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(k.privateKey);
  };

  const form = { grant_type: 'client_credentials', audience };
  // The signature and claim checks of an assertion by themselves, with the client's key set built once.
  const localSet = createLocalJWKSet(keyed.jwks!);
  const verifyAlone = async () => {
    const signed = await assertion(keyed);
    return async () => {
      await jwtVerify(signed, localSet, { issuer: keyed.id, subject: keyed.id, audience: issuer, algorithms: ['ES256'] });
      return { status: 200, body: {}, nonce: null, retries: 0 };
    };
  };
  const oneTimeIds = oneTimeIdsRepository(stack.runtime.db, stack.tableName);
  const jtiWrite = async () => {
    const fresh = await oneTimeIds.useOnce('client_assertion', 'bench', randomUUID(), new Date(Date.now() + 60_000));
    return { status: fresh ? 200 : 409, body: {}, nonce: null, retries: 0 };
  };
  const secretRequest = (c: Client) => async () => {
    const a = await post(tokenEndpoint, { authorization: basicAuth(c.id, c.secret) }, form);
    return { ...a, retries: 0 };
  };
  const keyRequest = (c: Client) => async () => {
    const signed = await assertion(c);
    return async () => ({
      ...(await post(tokenEndpoint, {}, { ...form, client_id: c.id, client_assertion_type: ASSERTION, client_assertion: signed })),
      retries: 0,
    });
  };
  /** With a proof; a `use_dpop_nonce` answer is retried once with the nonce it carries (RFC 9449 §8). */
  const dpopRequest = (c: Client, keyBased: boolean) => async () => {
    let signedProof = await proof(c);
    const body = keyBased ? { ...form, client_id: c.id, client_assertion_type: ASSERTION, client_assertion: await assertion(c) } : form;
    const headers: Record<string, string> = keyBased ? {} : { authorization: basicAuth(c.id, c.secret) };
    return async () => {
      let a = await post(tokenEndpoint, { ...headers, dpop: signedProof }, body);
      nonce = a.nonce ?? nonce;
      if (a.status === 400 && a.body.error === 'use_dpop_nonce') {
        signedProof = await proof(c);
        // A second request with the same assertion would be a replay: a key-based client signs a new one.
        const retryBody = keyBased ? { ...body, client_assertion: await assertion(c) } : body;
        a = await post(tokenEndpoint, { ...headers, dpop: signedProof }, retryBody);
        nonce = a.nonce ?? nonce;
        return { ...a, retries: 1 };
      }
      return { ...a, retries: 0 };
    };
  };
  const bearer = (a: Answer) => a.status === 200 && a.body.token_type === 'Bearer';
  const dpopBound = (a: Answer) => a.status === 200 && a.body.token_type === 'DPoP';
  const kinds: Kind[] = [
    { label: '(a) client_secret_basic (baseline)', prepare: async () => secretRequest(plain), accepts: bearer },
    { label: '(b) private_key_jwt, inline jwks', prepare: keyRequest(keyed), accepts: bearer },
    { label: '(c) DPoP-bound, client_secret_basic', prepare: dpopRequest(dpop, false), accepts: dpopBound },
    { label: '(d) DPoP-bound, private_key_jwt', prepare: dpopRequest(both, true), accepts: dpopBound },
    // What the one-time jti write costs by itself: the store's own call, in this process, no HTTP.
    {
      label: 'reference: one ES256 assertion verified by jose alone (no HTTP)',
      prepare: verifyAlone,
      accepts: (a: Answer) => a.status === 200,
    },
    { label: 'reference: one jti write alone (no HTTP)', prepare: async () => jtiWrite, accepts: (a: Answer) => a.status === 200 },
  ].map((k) => ({ ...k, available: true, why: '', samples: [] }));

  // The first request of each kind says whether its feature is here; then warm-up (caches, JIT,
  // DynamoDB Local's compiled paths), untimed.
  for (const k of kinds) {
    const a = await (await k.prepare())();
    if (!k.accepts(a)) {
      k.available = false;
      k.why = `${a.status} ${JSON.stringify(a.status === 200 ? { token_type: a.body.token_type } : a.body)}`;
    }
  }
  if (!kinds[0]!.available) throw new Error(`the baseline failed: ${kinds[0]!.why}`);
  const live = kinds.filter((k) => k.available);
  for (let i = 0; i < warmup; i++) for (const k of live) await measure(k);
  for (const k of live) k.samples = [];

  const jvm0 = jvmRunMs();
  const compiler0 = jvmPid === undefined ? 0 : jvmCpuSecondsOf([jvmPid]).compiler;
  const started = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const k of r % 2 === 0 ? live : [...live].reverse()) k.samples.push(await measure(k));
  }
  const runSeconds = (performance.now() - started) / 1000;
  const jvmRun = jvmRunMs() - jvm0;
  const compilerMs = jvmPid === undefined ? 0 : (jvmCpuSecondsOf([jvmPid]).compiler - compiler0) * 1000;
  const load1 = loadavg();

  // ---- report -------------------------------------------------------------------------------------
  const base = kinds[0]!;
  const total = (xs: Sample[]) => xs.reduce((s, x) => s + x.cpuMs + x.dbMs, 0);
  const own = (xs: Sample[]) => xs.reduce((s, x) => s + x.cpuMs, 0);
  const blockOf = (xs: Sample[], b: number) =>
    xs.slice(Math.floor((b * xs.length) / blockCount), Math.floor(((b + 1) * xs.length) / blockCount));
  const commit = execSync('git rev-parse --short HEAD').toString().trim();
  const dirty = execSync('git status --porcelain --untracked-files=no').toString().trim() !== '';
  const out: string[] = [
    `client authentication and DPoP vs client_secret_basic: ${rounds} rounds after ${warmup} warm-up rounds, one ` +
      `request of each kind per round, one at a time, ${round(runSeconds)} s; commit ${commit}` +
      `${dirty ? ' (tree with uncommitted changes)' : ''}; node ${process.version}; load average ` +
      `${load0.map((l) => l.toFixed(1)).join(' ')} before, ${load1.map((l) => l.toFixed(1)).join(' ')} after`,
    '',
    `| client_credentials token | CPU ms median (ours + db) | CPU ms p90 | tokens per CPU-second | ÷ (a) per CPU-second, median of ${blockCount} blocks (min–max) | ÷ (a) per CPU-second of this process alone | wall ms median | DynamoDB calls per token (mean, by operation) | most in one request | use_dpop_nonce retries |`,
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const k of kinds) {
    if (!k.available) {
      out.push(`| ${k.label} | not available (first answer: ${k.why.replace(/\|/g, '\\|')}) | | | | | | | | |`);
      continue;
    }
    const cpu = k.samples.map((x) => x.cpuMs + x.dbMs);
    const ratios = Array.from({ length: blockCount }, (_, b) => total(blockOf(base.samples, b)) / total(blockOf(k.samples, b)));
    const ratio = k === base ? '1' : `**${round(median(ratios))}×** (${round(Math.min(...ratios))}–${round(Math.max(...ratios))})`;
    const ours = Array.from({ length: blockCount }, (_, b) => own(blockOf(base.samples, b)) / own(blockOf(k.samples, b)));
    const oursRatio = k === base ? '1' : `${round(median(ours))}× (${round(Math.min(...ours))}–${round(Math.max(...ours))})`;
    const most = k.samples.reduce((m, x) => (x.usage.calls > m.calls ? x.usage : m), emptyUsage());
    out.push(
      `| ${k.label} | ${round(median(cpu))} (${round(median(k.samples.map((x) => x.cpuMs)))} + ${round(median(k.samples.map((x) => x.dbMs)))}) | ` +
        `${round(percentile(cpu, 90))} | ${Math.round((1000 * k.samples.length) / total(k.samples))} | ${ratio} | ${oursRatio} | ` +
        `${round(median(k.samples.map((x) => x.wallMs)))} | ${perToken(k.samples)} | ${commands(most)} | ` +
        `${k.samples.reduce((s, x) => s + x.nonceRetries, 0)} of ${k.samples.length} |`,
    );
  }
  out.push(
    '',
    'Tokens per CPU-second are over the whole run (ours + the DynamoDB Local JVM); the ratio of each block is',
    "(a)'s CPU over the kind's CPU in the same rounds. The JVM's CPU includes its background threads (GC,",
    'compiler) in whichever request they ran.',
    `DynamoDB Local (pid ${jvmPid}, ${jvmPid === undefined ? '' : readFileSync(`/proc/${jvmPid}/comm`, 'utf8').trim()}): ` +
      `${round(jvmRun)} ms of CPU over the rounds, ${round(jvmRun - live.reduce((s, k) => s + k.samples.reduce((t, x) => t + x.dbMs, 0), 0))} ms of it between requests, ` +
      `${round(compilerMs)} ms in its JIT compiler threads (10 ms ticks).`,
  );
  report(`${out.join('\n')}\n`);
} finally {
  await stack.stop();
}

/** One request of a kind: this process's CPU, the JVM's, wall time and DynamoDB calls; a wrong answer ends the run. */
async function measure(k: Kind): Promise<Sample> {
  const request = await k.prepare();
  const db0 = jvmRunMs();
  const calls = meter.snapshot();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const res = await request();
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  const usage = meter.since(calls);
  const dbMs = jvmRunMs() - db0;
  if (!k.accepts(res)) throw new Error(`${k.label}: ${res.status} ${JSON.stringify(res.body)}`);
  return { cpuMs: (used.user + used.system) / 1000, dbMs, wallMs, usage, nonceRetries: res.retries };
}

/** The DynamoDB Local JVM's run time so far in ms, every thread (the scheduler's nanosecond count). */
function jvmRunMs(): number {
  if (jvmPid === undefined) return 0;
  let ns = 0;
  for (const t of readdirSync(`/proc/${jvmPid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${jvmPid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read: its time has left the sum either way.
    }
  }
  return ns / 1e6;
}

async function post(url: string, headers: Record<string, string>, params: Record<string, string>): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': FORM }, body: new URLSearchParams(params) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, nonce: res.headers.get('dpop-nonce') };
}

/** Mean DynamoDB calls and capacity units per token by operation, e.g. `1.03: PutItem 1.00, BatchGetItem 0.03; 0.03 RCU + 1.00 WCU`. */
function perToken(samples: Sample[]): string {
  const byCommand: Record<string, number> = {};
  for (const x of samples) for (const [name, n] of Object.entries(x.usage.byCommand)) byCommand[name] = (byCommand[name] ?? 0) + n;
  const calls = samples.reduce((s, x) => s + x.usage.calls, 0);
  if (calls === 0) return 'none';
  const parts = Object.entries(byCommand).map(([name, n]) => `${name.replace(/Command$/, '')} ${(n / samples.length).toFixed(2)}`);
  const units = (f: (u: DdbUsage) => number) => (samples.reduce((s, x) => s + f(x.usage), 0) / samples.length).toFixed(2);
  return `${(calls / samples.length).toFixed(2)}: ${parts.join(', ')}; ${units((u) => u.rcu)} RCU + ${units((u) => u.wcu)} WCU`;
}

function commands(u: DdbUsage): string {
  if (u.calls === 0) return 'none';
  return Object.entries(u.byCommand)
    .map(([name, n]) => `${name.replace(/Command$/, '')} ${n}`)
    .join(', ');
}
