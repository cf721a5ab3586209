/**
 * `npm run bench`: the benchmark suite of issue 5 (docs/benchmarks.md). Prints the report and writes
 * bench/results/latest.json and bench/results/latest.md.
 *
 * Options: --quick (short runs, for trying the harness), --sections=1,2,3,4,5,6,7 (a subset),
 * --connections=N (16), --duration=S (6 s per measured load run), --rounds=N (5).
 */
import { execSync } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { LocalStack } from '../infra/local/local-stack.ts';
import { basicAuth, FORM } from './lib/api-event.ts';
import { attachDdbMeter, type DdbMeter } from './lib/ddb-meter.ts';
import { FAKE_KMS_KEY_ARN, installFakeKms } from './lib/fake-kms.ts';
import { fetchToken, prepareOurClient, type TokenFixture } from './lib/fixture.ts';
import { canPin, LOAD_CORE, pinSelf, SERVER_CORE, spawnNode, stopChild, waitForReady } from './lib/proc.ts';
import { renderMarkdown } from './lib/report.ts';
import { sideBySide } from './lib/side-by-side.ts';
import { checkTargets } from './lib/targets.ts';
import type { LiftedThrottle } from './lib/throttles.ts';
import type { BenchResults } from './lib/types.ts';
import { benchColdStart } from './sections/cold-start.ts';
import { costPerMillion } from './sections/cost.ts';
import { probeOperation, type OperationCost } from './sections/ddb-per-request.ts';
import { benchLimits } from './sections/limits.ts';
import { benchLists } from './sections/lists.ts';

const ROOT = resolve(import.meta.dirname, '..');
const RESULTS = join(ROOT, 'bench/results');
const WORK = join(RESULTS, `work-${process.pid}.tmp`);

// ---- options -------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const value = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const quick = flag('quick');
const sections = new Set((value('sections') ?? '1,2,3,4,5,6,7').split(',').map(Number));
const opts = {
  quick,
  sections: [...sections],
  connections: Number(value('connections') ?? 16),
  durationS: Number(value('duration') ?? (quick ? 3 : 6)),
  warmupS: quick ? 1 : 3,
  rounds: Number(value('rounds') ?? (quick ? 2 : 5)),
  inProcessSeconds: quick ? 1.5 : 3,
  listSizes: quick ? [10, 1000] : [10, 1000, 10_000],
  listSamples: quick ? 5 : 15,
  coldRuns: quick ? 2 : 5,
  coldTokenRuns: quick ? 3 : 9,
  coldStartsPerMillion: 100,
  introspectionTokens: quick ? 32 : 256,
};

const t0 = Date.now();
const log = (line: string) => process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(3)}s] ${line}\n`);

// Fixed Default Client credentials for both of our stacks (what DEFAULT_CLIENT_ID/SECRET do for npm start).
const DEFAULT_CLIENT_ID = '0190a0a0-bbbb-7000-8000-00000000be0c';
const DEFAULT_CLIENT_SECRET = 'bench-default-client-secret-0123456789abcdefghijklmno';

// The handlers log one JSON line per request (Powertools, INFO) to stdout, as in Lambda. In this
// process those lines go to /dev/null (still one write per line, as Lambda's stdout pipe costs),
// and stdout carries only the report.
const devNull = openSync('/dev/null', 'w');
const writeReport = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array) => {
  if (typeof chunk === 'string') writeSync(devNull, chunk);
  else writeSync(devNull, chunk);
  return true;
}) as typeof process.stdout.write;

const pinned = pinSelf(LOAD_CORE);
const pinning = pinned
  ? `Pinned with taskset: servers under test (and DynamoDB Local) on core ${SERVER_CORE}, load generator and in-process measurements on core ${LOAD_CORE}.`
  : `Not pinned (${canPin() ? 'taskset failed' : 'no taskset or a single core'}): load generator and servers share the cores.`;

const results: BenchResults = {
  meta: {
    startedAt: new Date().toISOString(),
    finishedAt: '',
    durationS: 0,
    commit: git('rev-parse HEAD'),
    dirty: git('status --porcelain') !== '',
    node: process.version,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    cpus: cpus().length,
    loadAvg: { before: round2(loadavg()[0]!), after: 0 },
    pinning,
    options: opts,
    versions: versions(['oidc-provider', 'autocannon', 'esbuild', 'jose', '@middy/core', '@aws-sdk/client-dynamodb']),
    liftedThrottles: [],
    fixtures: { ours: { clientId: '', resource: '', scope: '', source: 'default-client' }, theirs: { resource: '', scope: '', introspectedResource: '' } },
  },
  token: undefined,
  introspection: undefined,
  limits: undefined,
  lists: undefined,
  coldStart: undefined,
  ddb: undefined,
  cost: undefined,
  targets: [],
  errors: [],
};

const children: ChildProcess[] = [];
let inproc: LocalStack | undefined;
let stopping = false;
async function cleanup() {
  if (stopping) return;
  stopping = true;
  await inproc?.stop().catch(() => {});
  await Promise.all(children.map((c) => stopChild(c)));
  rmSync(WORK, { recursive: true, force: true });
}
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

async function section<T>(name: string, fn: () => Promise<T>): Promise<T | { error: string }> {
  try {
    return await fn();
  } catch (err) {
    const message = (err as Error).stack ?? String(err);
    log(`${name}: FAILED ${message.split('\n')[0]}`);
    results.errors.push({ section: name, message: (err as Error).message });
    return { error: (err as Error).message.slice(0, 500) };
  }
}

try {
  mkdirSync(WORK, { recursive: true });
  log(`start; ${pinning}`);

  // ---- servers ---------------------------------------------------------------------------------
  interface OursReady {
    url: string;
    dynamodbEndpoint: string;
    tableName: string;
    masterKeyFile: string;
    clientId: string;
    clientSecret: string;
    managementAudience: string;
    liftedThrottles: LiftedThrottle[];
  }
  interface TheirsReady {
    url: string;
    clientId: string;
    clientSecret: string;
    jwtResource: string;
    opaqueResource: string;
  }
  const oursChild = spawnNode(['--import', 'tsx', join(ROOT, 'bench/servers/ours.ts'), JSON.stringify({ clientId: DEFAULT_CLIENT_ID, clientSecret: DEFAULT_CLIENT_SECRET, tableName: 'bench-http' })], {
    core: SERVER_CORE,
    quietStderr: true,
    server: true,
  });
  children.push(oursChild);
  const theirsChild = spawnNode(['--import', 'tsx', join(ROOT, 'bench/servers/oidc-provider.ts'), '0'], { core: SERVER_CORE, quietStderr: true, server: true });
  children.push(theirsChild);
  const [ours, theirs] = await Promise.all([waitForReady<OursReady>(oursChild, 'our local server'), waitForReady<TheirsReady>(theirsChild, 'oidc-provider')]);
  results.meta.liftedThrottles = ours.liftedThrottles;
  log(`ours at ${ours.url} (DynamoDB Local ${ours.dynamodbEndpoint}), oidc-provider at ${theirs.url}`);

  const oursFixture = await prepareOurClient(ours.url, { clientId: ours.clientId, clientSecret: ours.clientSecret, managementAudience: ours.managementAudience });
  const { clientSecret: _hidden, ...fixtureMeta } = oursFixture;
  results.meta.fixtures = { ours: fixtureMeta, theirs: { resource: theirs.jwtResource, scope: 'read:things', introspectedResource: theirs.opaqueResource } };
  log(`our benchmark client: ${oursFixture.source}${oursFixture.note ? ` (${oursFixture.note})` : ''}`);

  const load = { connections: opts.connections, durationS: opts.durationS, warmupS: opts.warmupS, rounds: opts.rounds, log };
  const oursAuth = basicAuth(oursFixture.clientId, oursFixture.clientSecret);
  const theirsAuth = basicAuth(theirs.clientId, theirs.clientSecret);

  // ---- 1. token issuance --------------------------------------------------------------------------
  if (sections.has(1)) {
    results.token = await section('1 token', () =>
      sideBySide(
        'token',
        {
          url: `${ours.url}/token`,
          pid: oursChild.pid,
          method: 'POST',
          headers: { authorization: oursAuth, 'content-type': FORM },
          body: new URLSearchParams({ grant_type: 'client_credentials', resource: oursFixture.resource, scope: oursFixture.scope }).toString(),
        },
        {
          url: `${theirs.url}/token`,
          pid: theirsChild.pid,
          method: 'POST',
          headers: { authorization: theirsAuth, 'content-type': FORM },
          body: new URLSearchParams({ grant_type: 'client_credentials', resource: theirs.jwtResource, scope: 'read:things' }).toString(),
        },
        load,
      ),
    );
  }

  // ---- 2. introspection ------------------------------------------------------------------------------
  if (sections.has(2)) {
    results.introspection = await section('2 introspection', async () => {
      // Many distinct tokens, round-robin, on both sides: resource servers introspect many tokens,
      // and a server that cached the answer for one token must not look faster than it is.
      const pool = opts.introspectionTokens;
      const ourTokens: string[] = [];
      const theirTokens: string[] = [];
      for (let i = 0; i < pool; i++) {
        ourTokens.push(await fetchToken(ours.url, oursFixture.clientId, oursFixture.clientSecret, { resource: oursFixture.resource, scope: oursFixture.scope }));
        theirTokens.push(await fetchToken(theirs.url, theirs.clientId, theirs.clientSecret, { resource: theirs.opaqueResource, scope: 'read:things' }));
      }
      const form = (t: string) => new URLSearchParams({ token: t }).toString();
      const r = await sideBySide(
        'introspection',
        { url: `${ours.url}/tokeninfo`, pid: oursChild.pid, method: 'POST', headers: { authorization: oursAuth, 'content-type': FORM }, bodies: ourTokens.map(form) },
        { url: `${theirs.url}/token/introspection`, pid: theirsChild.pid, method: 'POST', headers: { authorization: theirsAuth, 'content-type': FORM }, bodies: theirTokens.map(form) },
        load,
      );
      return {
        ...r,
        note:
          `${pool} distinct tokens per side, sent round-robin. ` +
          'Both callers authenticate with client_secret_basic. Ours verifies the ES256 signature of each JWT and checks its jti against the revocation list (a DynamoDB GetItem, cached per container); oidc-provider refuses to introspect JWT access tokens ("Structured JWT Tokens cannot be introspected"), so its side introspects opaque tokens of the same client, lookups in its in-memory adapter: the only kind it can introspect.',
      };
    });
  }
  // oidc-provider is done; free its core.
  await stopChild(theirsChild);

  // ---- in-process stack: envelope key mode, fake KMS, metered DynamoDB ---------------------------------
  const needInproc = [3, 4, 6, 7].some((s) => sections.has(s));
  let meter: DdbMeter | undefined;
  let inprocFixture: TokenFixture | undefined;
  const kms = installFakeKms();
  const inprocTable = 'bench-inproc';
  const envelopeEnv = (issuer: string): Record<string, string> => ({
    TABLE_NAME: inprocTable,
    DYNAMODB_ENDPOINT: ours.dynamodbEndpoint,
    AWS_REGION: 'us-east-1',
    ISSUER: issuer,
    STAGE: 'bench',
    KEY_MODE: 'envelope',
    KMS_KEY_ID: FAKE_KMS_KEY_ARN,
  });
  if (needInproc) {
    const { startLocalStack } = await import('../infra/local/local-stack.ts');
    const { UNTHROTTLED } = await import('./lib/throttles.ts');
    inproc = await startLocalStack({
      port: 0,
      dataDir: null,
      dynamodbEndpoint: ours.dynamodbEndpoint,
      tableName: inprocTable,
      stageThrottle: UNTHROTTLED,
      defaultClientId: DEFAULT_CLIENT_ID,
      defaultClientSecret: DEFAULT_CLIENT_SECRET,
      env: { KEY_MODE: 'envelope', KMS_KEY_ID: FAKE_KMS_KEY_ARN, AWS_REGION: 'us-east-1', STAGE: 'bench' },
    });
    meter = attachDdbMeter(inproc.runtime.db);
    inprocFixture = await prepareOurClient(inproc.url, { clientId: DEFAULT_CLIENT_ID, clientSecret: DEFAULT_CLIENT_SECRET, managementAudience: inproc.runtime.config.managementAudience });
    log(`in-process stack at ${inproc.url} (envelope mode, fake KMS: ${JSON.stringify(kms.calls())})`);
  }

  // ---- 3. the limit -------------------------------------------------------------------------------------
  if (sections.has(3) && inproc && meter && inprocFixture) {
    const rt = inproc.runtime;
    const m = meter;
    const f = inprocFixture;
    results.limits = await section('3 limits', () => benchLimits({ runtime: rt, fixture: f, meter: m, kmsTotal: () => kms.total(), seconds: opts.inProcessSeconds, log }));
  }

  // ---- 4. lists at scale ------------------------------------------------------------------------------
  if (sections.has(4) && inproc && meter && inprocFixture) {
    const st = inproc;
    const m = meter;
    const templateClientId = inprocFixture.source === 'management-api' ? inprocFixture.clientId : DEFAULT_CLIENT_ID;
    results.lists = await section('4 lists', () =>
      benchLists({
        url: st.url,
        managementToken: (scope?: string) =>
          fetchToken(st.url, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, { audience: st.runtime.config.managementAudience, ...(scope ? { scope } : {}) }),
        kmsTotal: () => kms.total(),
        db: st.runtime.db,
        tableName: inprocTable,
        templateClientId,
        meter: m,
        sizes: opts.listSizes,
        samples: opts.listSamples,
        log,
      }),
    );
  }

  // ---- 5. cold start ------------------------------------------------------------------------------------
  if (sections.has(5)) {
    const cs = await section('5 cold start', () =>
      benchColdStart({
        workDir: WORK,
        runs: opts.coldRuns,
        tokenRuns: opts.coldTokenRuns,
        env: {
          TABLE_NAME: ours.tableName,
          DYNAMODB_ENDPOINT: ours.dynamodbEndpoint,
          AWS_REGION: 'us-east-1',
          ISSUER: ours.url,
          STAGE: 'bench',
          KEY_MODE: 'local',
          LOCAL_MASTER_KEY_FILE: ours.masterKeyFile,
          POWERTOOLS_SERVICE_NAME: 'identity-service',
          POWERTOOLS_LOG_LEVEL: 'INFO',
        },
        target: { issuer: ours.url, clientId: ours.clientId, clientSecret: ours.clientSecret, audience: ours.managementAudience },
        log,
      }),
    );
    results.coldStart = 'error' in cs ? undefined : cs;
  }

  // ---- 6. DynamoDB / KMS per request ---------------------------------------------------------------------
  if (sections.has(6) && inproc && inprocFixture) {
    const st = inproc;
    const f = inprocFixture;
    const env = envelopeEnv(st.runtime.config.issuer);
    const auth = basicAuth(f.clientId, f.clientSecret);
    const operations: OperationCost[] = [];
    const tokenBody = new URLSearchParams({ grant_type: 'client_credentials', resource: f.resource, scope: f.scope }).toString();
    const token = await fetchToken(st.url, f.clientId, f.clientSecret, { resource: f.resource, scope: f.scope }).catch(() => '');
    const mgmt = await fetchToken(st.url, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, { audience: st.runtime.config.managementAudience, scope: 'read:clients' }).catch(() => '');
    const mgmtKeys = await fetchToken(st.url, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, { audience: st.runtime.config.managementAudience }).catch(() => '');
    const probes: { operation: string; handler: string; event: Parameters<typeof probeOperation>[0]['event'] }[] = [
      { operation: 'POST /token (client_credentials)', handler: 'functions/oauth/token', event: { method: 'POST', resource: '/token', headers: { Authorization: auth, 'Content-Type': FORM }, body: tokenBody } },
      { operation: 'POST /tokeninfo', handler: 'functions/oauth/tokeninfo', event: { method: 'POST', resource: '/tokeninfo', headers: { Authorization: auth, 'Content-Type': FORM }, body: `token=${token}` } },
      { operation: 'POST /introspect', handler: 'functions/oauth/introspect', event: { method: 'POST', resource: '/introspect', headers: { Authorization: auth, 'Content-Type': FORM }, body: `token=${token}` } },
      { operation: 'GET /.well-known/jwks.json', handler: 'functions/oauth/jwks', event: { method: 'GET', resource: '/.well-known/jwks.json' } },
      { operation: 'GET /identity/v1/clients?limit=50 (read:clients)', handler: 'functions/clients/list-clients', event: { method: 'GET', resource: '/identity/v1/clients', headers: { Authorization: `Bearer ${mgmt}` }, query: { limit: '50' } } },
      { operation: 'GET /identity/v1/clients?limit=50 (caller with read:client_keys)', handler: 'functions/clients/list-clients', event: { method: 'GET', resource: '/identity/v1/clients', headers: { Authorization: `Bearer ${mgmtKeys}` }, query: { limit: '50' } } },
    ];
    for (const p of probes) {
      const r = await probeOperation({ ...p, env, warm: 200 });
      operations.push(r);
      log(`ddb: ${p.operation}: cold ${r.cold ? `${r.cold.ddbCalls} calls ${r.cold.rru} RRU, KMS ${r.cold.kmsCalls}` : r.error?.slice(0, 120)}; warm ${r.warm ? `${r.warm.ddbCalls} calls/request` : '-'}`);
    }
    if (results.limits && 'tokenRun' in results.limits) {
      const tr = results.limits.tokenRun;
      operations.push({
        operation: 'POST /token, sustained (section 3 run)',
        cold: null,
        warm: { ddbCalls: tr.ddb.calls / tr.tokens, reads: tr.ddbReadsPerToken, rru: tr.rruPerToken, wru: tr.ddb.wcu / tr.tokens, kmsCalls: tr.kmsPerToken, requests: tr.tokens },
        note: `${Math.round(tr.tokens / (opts.inProcessSeconds + 1))} tokens/s for ${opts.inProcessSeconds + 1} s`,
        status: 200,
      });
    }
    if (results.lists && 'sizes' in results.lists) {
      for (const s of results.lists.sizes) {
        for (const [name, st2] of [['list first page', s.firstPage], ['list offset 900', s.offset900], ['list via cursor', s.cursor], ['list first page, read:client_keys', s.firstPageWithSecrets], ['create client', s.create]] as const) {
          if (!st2.samples) continue;
          operations.push({ operation: `${name} @ ${s.clients.toLocaleString('en-US')} clients (HTTP)`, cold: null, warm: { ddbCalls: st2.ddbCalls, reads: NaN, rru: st2.rru, wru: st2.wru, kmsCalls: st2.kmsCalls, requests: st2.samples }, status: st2.status });
        }
      }
    }
    results.ddb = { operations };
  }

  // ---- 7. cost -----------------------------------------------------------------------------------------------
  if (sections.has(7)) {
    results.cost = await section('7 cost', async () => {
      const lim = results.limits && 'tokenRun' in results.limits ? results.limits : undefined;
      const tokenOp = results.ddb?.operations.find((o) => o.operation === 'POST /token (client_credentials)');
      if (!lim) throw new Error('needs section 3 (handler CPU time per token)');
      const { FUNCTION_MEMORY_MB } = await import('../infra/constructs/route-api.ts');
      return costPerMillion({
        handlerUsPerToken: lim.breakdownUs.total,
        memoryMb: FUNCTION_MEMORY_MB['functions/oauth/token'] ?? 512,
        warmRruPerToken: lim.tokenRun.rruPerToken,
        warmKmsPerToken: lim.tokenRun.kmsPerToken,
        coldRru: tokenOp?.cold?.rru ?? 0,
        coldKmsCalls: tokenOp?.cold?.kmsCalls ?? 1,
        coldInitMs: results.coldStart?.token?.readyMs ?? 150,
        coldStartsPerMillion: opts.coldStartsPerMillion,
      });
    });
  }
} catch (err) {
  log(`FAILED: ${(err as Error).stack ?? err}`);
  results.errors.push({ section: 'setup', message: (err as Error).message });
} finally {
  await cleanup();
}

results.meta.finishedAt = new Date().toISOString();
results.meta.durationS = (Date.now() - t0) / 1000;
results.meta.loadAvg.after = round2(loadavg()[0]!);
results.targets = checkTargets(results);
const md = renderMarkdown(results);
mkdirSync(RESULTS, { recursive: true });
writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(join(RESULTS, 'latest.md'), `${md}\n`);
writeReport(`${md}\n`);
log(`wrote bench/results/latest.json and latest.md in ${Math.round(results.meta.durationS)} s`);
process.exit(results.errors.some((e) => e.section === 'setup') ? 1 : 0);

function git(args: string): string {
  try {
    return execSync(`git ${args}`, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

function versions(pkgs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pkgs) {
    try {
      out[p] = (JSON.parse(readFileSync(join(ROOT, 'node_modules', p, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      out[p] = 'missing';
    }
  }
  return out;
}

function round2(x: number) {
  return Math.round(x * 100) / 100;
}
