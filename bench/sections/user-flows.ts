/**
 * Section 9: the user flows (docs/benchmarks.md). Over HTTP against the servers of
 * sections 1-2: the password grant's latency as a multiple of one argon2id hash, the refresh
 * grant side by side with oidc-provider's, `/userinfo` side by side with oidc-provider's `/me`.
 * On the in-process stack (metered DynamoDB): reads and writes per password, refresh and userinfo
 * request, warm.
 *
 * Everything goes through the public interfaces (the management API makes the client and the
 * user, `/token` and `/userinfo` are called as a client would), so a part whose endpoint is not
 * there answers with what is missing, never with a number it did not measure.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { basicAuth, FORM } from '../lib/api-event.ts';
import { databaseProcesses, jvmCpuSecondsOf, settleCore } from '../lib/cpu.ts';
import type { DdbMeter, DdbUsage } from '../lib/ddb-meter.ts';
import { fetchToken } from '../lib/fixture.ts';
import type { Chain, LoadTarget, SideProcesses } from '../lib/load.ts';
import { canPin, LOAD_CORE, NODE, pinProcess, SERVER_CORE } from '../lib/proc.ts';
import { type ComparisonResult, combinePasses, comparePass, type Side, type SideBySideOptions, warmUp } from '../lib/side-by-side.ts';
import { median, percentile, round } from '../lib/stats.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** A confidential client with the password and refresh_token grants, and one user with a password. */
export interface UserFixture {
  url: string;
  clientId: string;
  clientSecret: string;
  username: string;
  password: string;
}

/** One measure of the password latency: `samples` of one hash then one grant, one at a time. */
export interface PasswordMeasure {
  /** One `hashPassword` (the service's argon2id parameters) in a process on the server core. */
  hashMs: { median: number; p90: number };
  /** A password grant that succeeds, over HTTP, one at a time, interleaved with the hashes. */
  grantMs: { median: number; p90: number };
  /** grant median ÷ hash median (target ≤ 1.3×). */
  ratio: number;
  /**
   * Our DynamoDB Local's CPU per sample (one hash and one grant) during the measure, in all and of
   * its JIT compiler threads: the compiler's share says whether the database was warm.
   */
  dbMs?: { all: number; compiler: number };
}

/** The judged measure (after the warm-up) and the informational ones beside it. */
export interface PasswordLatency extends PasswordMeasure {
  samples: number;
  /** Password grants before the judged measure, not measured (PASSWORD_WARMUP_GRANTS in a full run). */
  warmupGrants: number;
  /** Informational, not judged: the same measure after only COLD_WARMUP_GRANTS grants, taken first. */
  cold?: PasswordMeasure;
  /** Informational, not judged: the same measure with our DynamoDB Local moved to the load core. */
  dbOwnCore?: Omit<PasswordMeasure, 'dbMs'>;
}

export interface FlowCost {
  operation: string;
  requests: number;
  seconds: number;
  /** Per request. */
  reads: number;
  writes: number;
  rru: number;
  wru: number;
  /** Calls of each command per request. */
  byCommand: Record<string, number>;
  /**
   * The most read calls and write calls any single request made (the targets count calls per
   * request: a mean of 1.005 hides the one request in 200 that read twice).
   */
  maxReads: number;
  maxWrites: number;
}

export interface UserFlowsResult {
  /** The parts not measured, each with why (an endpoint or a module not there yet). */
  missing: string[];
  password?: PasswordLatency;
  refresh?: ComparisonResult;
  userinfo?: ComparisonResult;
  ddb: FlowCost[];
  notes: string[];
}

/** Our side of the flows: a server process (its pid for CPU) and how the management API is reached. */
export interface OurUserSide {
  name: string;
  url: string;
  procs: SideProcesses;
  admin: { clientId: string; clientSecret: string; managementAudience: string };
}

/** The oidc-provider side (bench/servers/oidc-provider.ts): its refresh client and the minting route. */
export interface TheirUserSide {
  name: string;
  url: string;
  procs: SideProcesses;
  refreshClientId: string;
  refreshClientSecret: string;
}

export const PASSWORD = 'bench-Password-7-Lighthouse-Quartz';

/**
 * Unmeasured password grants before the password latency (about a minute here): over a fresh
 * DynamoDB Local's first 1,000 grants its compilers' CPU per grant fell from 16.5 ms (first 100)
 * to about 3 ms, and grant ÷ hash from 1.50× to about 1.23× (docs/benchmarks.md "Password grant:
 * the database's JIT"). bench:password-ab uses it too.
 */
export const PASSWORD_WARMUP_GRANTS = 1000;
/** The warm-up sessions 7-9 gave the password latency; section 9 prints that measure beside the judged one. */
const COLD_WARMUP_GRANTS = 3;
const REFRESH_SCOPE = 'openid offline_access';

/**
 * Makes the client and the user through the management API (create:clients, create:users). Throws
 * with a readable reason when a step is not available.
 */
export async function prepareUserFixture(side: OurUserSide, tag: string): Promise<UserFixture> {
  const { url, admin } = side;
  const mgmt = await fetchToken(url, admin.clientId, admin.clientSecret, {
    audience: admin.managementAudience,
    scope: 'create:clients create:users',
  }).catch((err: Error) => {
    throw new Error(`a management token with create:users (the Users API): ${err.message.slice(0, 200)}`);
  });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mgmt}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const client = await post('/identity/v1/clients', {
    client_name: `bench users ${tag}`,
    // ES256 ID tokens like the oidc-provider clients (bench/servers/oidc-provider.ts): both sides sign alike.
    client_metadata: { grant_types: ['password', 'refresh_token'], id_token_signed_response_alg: 'ES256' },
  });
  const username = `bench_${tag}_${Date.now().toString(36)}`;
  await post('/identity/v1/users', { username, email: `${username}@bench.example`, password: PASSWORD, email_verified: true });
  return { url, clientId: String(client.id), clientSecret: String(client.client_secret), username, password: PASSWORD };
}

async function tokenRequest(f: Pick<UserFixture, 'url' | 'clientId' | 'clientSecret'>, params: Record<string, string>) {
  const res = await fetch(`${f.url}/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(f.clientId, f.clientSecret), 'content-type': FORM },
    body: new URLSearchParams(params),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /token (${params.grant_type}): ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as Record<string, string>;
}

export const passwordGrant = (f: UserFixture, scope = REFRESH_SCOPE) =>
  tokenRequest(f, { grant_type: 'password', username: f.username, password: f.password, scope });

/**
 * The service's own argon2id hash (shared/crypto/password-hash.ts) in a worker process on the
 * server core (bench/probes/hash-worker.ts), so it runs where the grant's hash runs; undefined when
 * this tree has no password hashing.
 */
export async function hashWorker(): Promise<{ hash: (password: string) => Promise<number>; stop: () => void } | undefined> {
  const pin = canPin();
  const args = ['--import', 'tsx', join(ROOT, 'bench/probes/hash-worker.ts')];
  const child = spawn(pin ? 'taskset' : NODE, pin ? ['-c', String(SERVER_CORE), NODE, ...args] : args, {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done || first.value !== 'ready') {
    child.kill();
    return undefined;
  }
  return {
    async hash(password) {
      child.stdin!.write(`${password}\n`);
      const ms = await lines.next();
      if (ms.done) throw new Error('the hash worker ended');
      return Number(ms.value);
    },
    stop: () => child.kill(),
  };
}

/** Password grant latency ÷ one hash: one of each per sample, interleaved, so a change of load shifts both alike. */
async function passwordLatency(
  f: UserFixture,
  o: { samples: number; warmupGrants: number },
  serverPid: number | undefined,
): Promise<PasswordLatency | string> {
  const worker = await hashWorker();
  if (!worker) return 'shared/crypto/password-hash.ts is not in this tree';
  try {
    const db = serverPid ? databaseProcesses(serverPid) : [];
    const stat = (xs: number[]) => ({ median: round(median(xs)), p90: round(percentile(xs, 90)) });
    const measure = async (): Promise<PasswordMeasure> => {
      const hashes: number[] = [];
      const grants: number[] = [];
      const before = jvmCpuSecondsOf(db);
      for (let i = 0; i < o.samples; i++) {
        hashes.push(await worker.hash(PASSWORD));
        const t = performance.now();
        await passwordGrant(f, 'openid');
        grants.push(performance.now() - t);
      }
      const after = jvmCpuSecondsOf(db);
      const perSample = (s: number) => round((s * 1000) / o.samples);
      return {
        hashMs: stat(hashes),
        grantMs: stat(grants),
        ratio: round(median(grants) / median(hashes)),
        ...(db.length ? { dbMs: { all: perSample(after.all - before.all), compiler: perSample(after.compiler - before.compiler) } } : {}),
      };
    };
    // The servers of a run that starts with this section may still be compiling on the server core.
    await settleCore(SERVER_CORE);
    for (let i = 0; i < COLD_WARMUP_GRANTS; i++) {
      await worker.hash(PASSWORD);
      await passwordGrant(f, 'openid');
    }
    // Informational: the measure as sessions 7-9 took it, after 3 grants, with our DynamoDB Local
    // still compiling the paths a login takes.
    const cold = await measure();
    // Warm means our DynamoDB Local too: until its JIT has compiled those paths, its compiler
    // threads spend more of the server core per grant than the calls themselves
    // (docs/benchmarks.md "Password grant: the database's JIT").
    for (let i = 0; i < o.warmupGrants; i++) await passwordGrant(f, 'openid');
    await settleCore(SERVER_CORE);
    const judged = { samples: o.samples, warmupGrants: o.warmupGrants, ...(await measure()), cold };
    // Informational: the same with our DynamoDB Local on the load core (idle between these
    // one-at-a-time requests), a database with a CPU of its own as DynamoDB is. On the server core
    // each call is CPU taken from our core, so work that overlaps a call cannot gain there
    // (docs/benchmarks.md "Password grant: three stages").
    // The comparisons that follow count our DynamoDB Local on the server core: it must be back
    // there, every process of it, whatever moved and whatever failed.
    const back = () => db.map((pid) => pinProcess(pid, SERVER_CORE)).every(Boolean);
    if (!db.length || !canPin()) return judged;
    if (!db.map((pid) => pinProcess(pid, LOAD_CORE)).every(Boolean)) {
      if (!back()) throw new Error('taskset could not move our DynamoDB Local back');
      return judged;
    }
    const { dbMs: _elsewhere, ...dbOwnCore } = await measure().catch((err: unknown) => {
      back();
      throw err;
    });
    if (!back()) throw new Error('taskset could not move our DynamoDB Local back');
    return { ...judged, dbOwnCore };
  } finally {
    worker.stop();
  }
}

const refreshChain = (start: Chain['start']): Chain => ({
  start,
  body: (rt) => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: rt }).toString(),
  next: (body) => (JSON.parse(body) as { refresh_token?: string }).refresh_token,
});

async function mintTheirs(t: TheirUserSide, n: number): Promise<string[]> {
  const res = await fetch(`${t.url}/bench/refresh-tokens?n=${n}`, { method: 'POST' });
  if (res.status !== 200) throw new Error(`oidc-provider refresh tokens: ${res.status} ${await res.text()}`);
  return (await res.json()) as string[];
}

/** Ours and oidc-provider's sides of one comparison, run in `passes` passes of alternating rounds. */
async function compare(name: string, sides: Side[], o: SideBySideOptions & { passes: number }): Promise<ComparisonResult> {
  await warmUp(name, sides, o);
  const passes = [];
  for (let p = 0; p < o.passes; p++) passes.push(await comparePass(`${name} (pass ${p + 1}/${o.passes})`, sides, o));
  return combinePasses(name, sides, o, passes);
}

/** The HTTP parts: password latency, refresh and /userinfo side by side. */
export async function benchUserFlows(o: {
  ours: OurUserSide;
  theirs: TheirUserSide[];
  passwordSamples: number;
  /** Unmeasured password grants before the latency is measured (PASSWORD_WARMUP_GRANTS in a full run). */
  passwordWarmupGrants: number;
  /** Runs once the password latency is measured, before the side-by-side comparisons. */
  afterPasswordLatency?: () => void;
  compare: SideBySideOptions & { passes: number };
  log: (line: string) => void;
}): Promise<UserFlowsResult> {
  const out: UserFlowsResult = { missing: [], ddb: [], notes: [] };
  let f: UserFixture;
  try {
    f = await prepareUserFixture(o.ours, 'http');
    await passwordGrant(f);
  } catch (err) {
    out.missing.push(`every user flow: ${(err as Error).message}`);
    return out;
  }
  o.log(`users: client ${f.clientId}, user ${f.username}`);

  const pw = await passwordLatency(f, { samples: o.passwordSamples, warmupGrants: o.passwordWarmupGrants }, o.ours.procs.pid);
  if (typeof pw === 'string') out.missing.push(`password grant ÷ argon2id: ${pw}`);
  else {
    out.password = pw;
    o.log(`users: password grant ${pw.grantMs.median} ms, argon2id hash ${pw.hashMs.median} ms: ${pw.ratio}×`);
    if (pw.dbOwnCore) o.log(`users: the same, DynamoDB Local on the load core: ${pw.dbOwnCore.grantMs.median} ms: ${pw.dbOwnCore.ratio}×`);
  }
  o.afterPasswordLatency?.();

  // Refresh: each connection rotates its own refresh token (one-time tokens on both sides).
  const oursRefresh: Side = {
    name: o.ours.name,
    procs: o.ours.procs,
    target: {
      url: `${f.url}/token`,
      method: 'POST',
      headers: { authorization: basicAuth(f.clientId, f.clientSecret), 'content-type': FORM },
      chain: refreshChain(async (n) => {
        const tokens: string[] = [];
        for (let i = 0; i < n; i++) tokens.push((await passwordGrant(f)).refresh_token!);
        return tokens;
      }),
    },
  };
  const theirRefresh = (t: TheirUserSide): Side => ({
    name: t.name,
    procs: t.procs,
    target: {
      url: `${t.url}/token`,
      method: 'POST',
      headers: { authorization: basicAuth(t.refreshClientId, t.refreshClientSecret), 'content-type': FORM },
      chain: refreshChain((n) => mintTheirs(t, n)),
    },
  });
  try {
    const first = await passwordGrant(f);
    if (!first.refresh_token) throw new Error('the password grant returned no refresh_token for offline_access');
    await tokenRequest(f, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    out.refresh = await compare('refresh grant', [oursRefresh, ...o.theirs.map(theirRefresh)], o.compare);
    out.notes.push(
      'Refresh: ours answers a signed JWT access token (aud {issuer}/userinfo), an ID token and a new refresh token (one BatchGetItem, one transaction); ' +
        "oidc-provider an opaque access token (stored), an ID token and a new refresh token (its grant, refresh token and account looked up, the old token consumed, two tokens saved), both with scope 'openid offline_access'.",
    );
  } catch (err) {
    out.missing.push(`refresh grant: ${(err as Error).message}`);
  }

  // /userinfo: the same access token every request (scope openid), as a resource server's repeated call.
  try {
    const ours = await passwordGrant(f, 'openid profile email');
    const probe = await fetch(`${f.url}/userinfo`, { headers: { authorization: `Bearer ${ours.access_token}` } });
    if (probe.status !== 200) throw new Error(`GET /userinfo: ${probe.status} ${(await probe.text()).slice(0, 200)}`);
    const sides: Side[] = [{ name: o.ours.name, procs: o.ours.procs, target: userinfoTarget(`${f.url}/userinfo`, ours.access_token!) }];
    for (const t of o.theirs) {
      const [rt] = await mintTheirs(t, 1);
      const theirs = await tokenRequest(
        { url: t.url, clientId: t.refreshClientId, clientSecret: t.refreshClientSecret },
        { grant_type: 'refresh_token', refresh_token: rt! },
      );
      sides.push({ name: t.name, procs: t.procs, target: userinfoTarget(`${t.url}/me`, theirs.access_token!) });
    }
    out.userinfo = await compare('userinfo', sides, o.compare);
  } catch (err) {
    out.missing.push(`/userinfo: ${(err as Error).message}`);
  }

  return out;
}

const userinfoTarget = (url: string, accessToken: string): LoadTarget => ({
  url,
  method: 'GET',
  headers: { authorization: `Bearer ${accessToken}` },
});

/**
 * Reads and writes per request on the in-process stack, warm (after one unmeasured request), one
 * request at a time: the password grant (fewer requests: each costs a hash), the refresh grant
 * (each request rotates the token of the one before) and /userinfo (one token); the last two for at
 * least three record TTLs, with the most calls any one request made beside the mean.
 */
export async function userFlowCosts(
  inproc: { side: OurUserSide; meter: DdbMeter },
  requests: number,
  missing: string[],
  log: (line: string) => void,
): Promise<FlowCost[]> {
  const out: FlowCost[] = [];
  let f: UserFixture;
  try {
    f = await prepareUserFixture(inproc.side, 'inproc');
  } catch (err) {
    missing.push(`DynamoDB reads and writes per request: ${(err as Error).message}`);
    return out;
  }
  /**
   * `n` requests one at a time, and more until `minSeconds` have passed: a run longer than the
   * record caches' TTL (1 s) counts the requests that find a cached record expired.
   */
  const measure = async (operation: string, n: number, one: (i: number) => Promise<unknown>, minSeconds = 0) => {
    try {
      await one(-1);
      const t0 = performance.now();
      const m0 = inproc.meter.snapshot();
      let maxReads = 0;
      let maxWrites = 0;
      let done = 0;
      while (done < n || performance.now() - t0 < minSeconds * 1000) {
        const before = inproc.meter.snapshot();
        await one(done++);
        const used = inproc.meter.since(before);
        // The revocation log's Query (shared/store/revocations/followed-revocations.ts) is the container's
        // upkeep, once a second whatever the rate, carried by whichever request finds it due; it
        // is the only Query on these paths. It stays in the mean and in byCommand, not in the
        // per-request maximum, which counts the request's own reads.
        maxReads = Math.max(maxReads, used.reads - (used.byCommand.QueryCommand ?? 0));
        maxWrites = Math.max(maxWrites, used.writes);
      }
      const used = inproc.meter.since(m0);
      const row = { ...costRow(operation, done, (performance.now() - t0) / 1000, used), maxReads, maxWrites };
      out.push(row);
      log(
        `users: ${operation}: ${row.reads} reads, ${row.writes} writes per request, at most ${maxReads} and ${maxWrites} in one (${done} requests, ${JSON.stringify(row.byCommand)})`,
      );
    } catch (err) {
      missing.push(`${operation}, reads and writes: ${(err as Error).message.slice(0, 200)}`);
    }
  };
  await measure('POST /token (password)', Math.max(5, Math.round(requests / 10)), () => passwordGrant(f));
  let rt: string | undefined;
  await measure(
    'POST /token (refresh_token)',
    requests,
    async () => {
      rt ??= (await passwordGrant(f)).refresh_token;
      if (!rt) throw new Error('no refresh_token from the password grant');
      rt = (await tokenRequest(f, { grant_type: 'refresh_token', refresh_token: rt })).refresh_token;
    },
    RUN_PAST_TTL_SECONDS,
  );
  let at: string | undefined;
  await measure(
    'GET /userinfo',
    requests,
    async () => {
      at ??= (await passwordGrant(f, 'openid profile email')).access_token;
      const res = await fetch(`${f.url}/userinfo`, { headers: { authorization: `Bearer ${at}` } });
      if (res.status !== 200) throw new Error(`GET /userinfo: ${res.status} ${(await res.text()).slice(0, 200)}`);
    },
    RUN_PAST_TTL_SECONDS,
  );
  return out;
}

/** Three record-cache TTLs (RECORD_CACHE_TTL_SECONDS, 1 s): every cached record expires during the run. */
const RUN_PAST_TTL_SECONDS = 3;

function costRow(operation: string, n: number, seconds: number, u: DdbUsage): Omit<FlowCost, 'maxReads' | 'maxWrites'> {
  const per = (x: number) => round(x / n);
  return {
    operation,
    requests: n,
    seconds: round(seconds),
    reads: per(u.reads),
    writes: per(u.writes),
    rru: per(u.rcu),
    wru: per(u.wcu),
    byCommand: Object.fromEntries(Object.entries(u.byCommand).map(([k, v]) => [k, per(v)])),
  };
}
