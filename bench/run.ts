/**
 * `npm run bench`: the benchmark suite (docs/benchmarks.md). Prints the report and writes
 * bench/results/latest.json and bench/results/latest.md.
 *
 * Options: --quick (short runs, for trying the harness), --sections=1,2,3,4,5,6,7 (a subset),
 * --connections=N (16), --duration=S (6 s per measured load run), --rounds=N (5).
 */

import type { ChildProcess } from 'node:child_process';
import { execSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { DynamoDbLocal } from '../infra/local/dynamodb-local.ts';
import type { LocalStack } from '../infra/local/local-stack.ts';
import { basicAuth, FORM } from './lib/api-event.ts';
import { attachDdbMeter, type DdbMeter } from './lib/ddb-meter.ts';
import { FAKE_KMS_KEY_ARN, installFakeKms } from './lib/fake-kms.ts';
import { fetchToken, prepareOurClient, type TokenFixture } from './lib/fixture.ts';
import { startKmsStandIn } from './lib/kms-stand-in.ts';
import { logsToDevNull } from './lib/logs-to-dev-null.ts';
import {
  canPin,
  LOAD_CORE,
  pinProcess,
  pinSelf,
  SERVER_CORE,
  spawnNode,
  startPeerDynamoDbLocal,
  startRedis,
  stopChild,
  waitForReady,
} from './lib/proc.ts';
import { renderMarkdown } from './lib/report.ts';
import { checkTargets, DYNAMODB_PEER } from './lib/targets.ts';
import type { LiftedThrottle } from './lib/throttles.ts';
import type { BenchResults } from './lib/types.ts';
import { benchAuthorizeFlow } from './sections/authorize-flow.ts';
import { benchColdStart } from './sections/cold-start.ts';
import { accessLogBytes, costPerMillion, memoryOptions, platformLogBytes } from './sections/cost.ts';
import { type OperationCost, probeOperation } from './sections/ddb-per-request.ts';
import { benchHttp, type ServerUnderTest } from './sections/http-compare.ts';
import { benchLeak } from './sections/leak.ts';
import { benchLimits } from './sections/limits.ts';
import { benchLists } from './sections/lists.ts';
import { benchObservability, metricsLogBytes } from './sections/observability.ts';
import { benchRbac } from './sections/rbac.ts';
import { benchUserFlows, PASSWORD_WARMUP_GRANTS, type UserFlowsResult, userFlowCosts } from './sections/user-flows.ts';

const ROOT = resolve(import.meta.dirname, '..');
const RESULTS = join(ROOT, 'bench/results');
const WORK = join(RESULTS, `work-${process.pid}.tmp`);

// ---- options -------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const value = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const quick = flag('quick');
const sections = new Set((value('sections') ?? '1,2,3,4,5,6,7,8,9,10,11').split(',').map(Number));
const opts = {
  quick,
  sections: [...sections],
  connections: Number(value('connections') ?? 16),
  durationS: Number(value('duration') ?? (quick ? 2 : 5)),
  warmupS: quick ? 1 : 3,
  rounds: Number(value('rounds') ?? (quick ? 2 : 3)),
  passes: Number(value('passes') ?? (quick ? 2 : 3)),
  inProcessSeconds: quick ? 1.5 : 3,
  listSizes: quick ? [10, 1000] : [10, 1000, 10_000],
  listSamples: quick ? 5 : 15,
  coldRuns: quick ? 2 : 5,
  coldTokenRuns: quick ? 3 : 9,
  coldStartsPerMillion: 100,
  // Larger than our verified-token cache (10,000, shared/oauth/oauth-runtime.ts) even in a quick run:
  // the uncached case must be uncached.
  introspectionPoolLarge: quick ? 12_000 : 15_000,
  introspectionPoolSmall: 256,
  openLoopS: quick ? 2 : 5,
  openLoopWarmupS: 1,
  openLoopShares: [0.5, 0.8],
  sweepS: quick ? 1.5 : 4,
  sweepConnections: [1, 4, 16, 64],
  leakTokens: quick ? 20_000 : 100_000,
  passwordSamples: quick ? 10 : 40,
  passwordWarmupGrants: quick ? 50 : PASSWORD_WARMUP_GRANTS,
  userFlowRequests: quick ? 50 : 200,
  rbacMembers: quick ? 2_000 : 10_000,
  rbacWarmRequests: quick ? 20 : 100,
  authorizeFlows: quick ? 20 : 200,
};
const fullRun =
  !quick &&
  [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].every((n) => sections.has(n)) &&
  !['connections', 'duration', 'rounds', 'passes'].some((k) => value(k) !== undefined);

const t0 = Date.now();
const log = (line: string) => process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(3)}s] ${line}\n`);

// Fixed Default Client credentials for both of our stacks (what DEFAULT_CLIENT_ID/SECRET do for npm start).
const DEFAULT_CLIENT_ID = '0190a0a0-bbbb-7000-8000-00000000be0c';
const DEFAULT_CLIENT_SECRET = 'bench-default-client-secret-0123456789abcdefghijklmno';

// The handlers log one JSON line per request (Powertools, INFO) to stdout, as in Lambda. In this
// process those lines go to /dev/null (still one write per line, as Lambda's stdout pipe costs),
// and stdout carries only the report.
const writeReport = logsToDevNull();

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
    fixtures: {
      ours: { clientId: '', resource: '', scope: '', source: 'default-client' },
      theirs: { resource: '', scope: '', introspectedResource: '' },
    },
    redis: { missing: 'not started' },
    dynamodbPeer: { missing: 'not started' },
    fullRun,
  },
  http: undefined,
  limits: undefined,
  lists: undefined,
  coldStart: undefined,
  ddb: undefined,
  cost: undefined,
  leak: undefined,
  users: undefined,
  rbac: undefined,
  authorizeFlow: undefined,
  targets: [],
  errors: [],
};

const children: ChildProcess[] = [];
let inproc: LocalStack | undefined;
let peerDynamoDb: DynamoDbLocal | undefined;
let stopping = false;
async function cleanup() {
  if (stopping) return;
  stopping = true;
  await inproc?.stop().catch(() => {});
  await Promise.all([...children.map((c) => stopChild(c)), peerDynamoDb?.stop()]);
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
    refreshClientId: string;
    refreshClientSecret: string;
  }
  // A server picks a free port and then listens on it: another process on this shared machine can
  // take the port in between. Such a start is tried again (three times at most).
  const startServer = async <T>(args: string[], what: string): Promise<{ child: ChildProcess; ready: T }> => {
    for (let attempt = 1; ; attempt++) {
      const child = spawnNode(args, { core: SERVER_CORE, quietStderr: true, server: true });
      children.push(child);
      try {
        return { child, ready: await waitForReady<T>(child, what) };
      } catch (err) {
        if (attempt >= 3 || !/already in use|EADDRINUSE/.test((err as Error).message)) throw err;
        log(`${what}: its port was taken before it listened; starting it again`);
      }
    }
  };
  // oidc-provider with a database in the loop: its Redis adapter against a real redis-server on the server core.
  const redisSections = sections.has(2) || sections.has(9);
  const redis = redisSections ? await startRedis(SERVER_CORE) : undefined;
  const redisMissing = redisSections
    ? 'redis-server is not installed (Debian: apt-get install -y redis-server): the Redis side of the introspection and refresh cases is not measured'
    : 'sections 2 and 9 not run';
  results.meta.redis = redis ? { version: redis.version } : { missing: redisMissing };
  if (redisSections && !redis) log(`REDIS MISSING: ${redisMissing}`);
  if (redis) children.push(redis.child);
  // oidc-provider on DynamoDB Local (the like-for-like refresh peer, section 9 only): a
  // DynamoDB Local of its own on the server core, whose CPU is that side's database, as ours is ours.
  let dynamodbPeerMissing = sections.has(9) ? '' : 'section 9 not run';
  const peerDdbFailed = (err: unknown) => {
    dynamodbPeerMissing = `oidc-provider on DynamoDB Local could not start (${(err as Error).message.split('\n')[0]?.slice(0, 300)}): the like-for-like refresh and /userinfo rows are not measured`;
    return undefined;
  };
  peerDynamoDb = sections.has(9) ? await startPeerDynamoDbLocal(LOAD_CORE).catch(peerDdbFailed) : undefined;
  const provider = join(ROOT, 'bench/servers/oidc-provider.ts');
  const [oursStarted, theirsStarted, theirsRedisStarted, theirsDdbStarted] = await Promise.all([
    startServer<OursReady>(
      [
        '--import',
        'tsx',
        join(ROOT, 'bench/servers/ours.ts'),
        JSON.stringify({ clientId: DEFAULT_CLIENT_ID, clientSecret: DEFAULT_CLIENT_SECRET, tableName: 'bench-http' }),
      ],
      'our local server',
    ),
    startServer<TheirsReady>(['--import', 'tsx', provider, '0', 'map'], 'oidc-provider'),
    redis ? startServer<TheirsReady>(['--import', 'tsx', provider, '0', `redis:${redis.url}`], 'oidc-provider (Redis)') : undefined,
    peerDynamoDb
      ? startServer<TheirsReady>(
          ['--import', 'tsx', provider, '0', `dynamodb:${peerDynamoDb.endpoint}`],
          'oidc-provider (DynamoDB Local)',
        ).catch(peerDdbFailed)
      : undefined,
  ]);
  const [oursChild, theirsChild, theirsRedisChild] = [oursStarted.child, theirsStarted.child, theirsRedisStarted?.child];
  const [ours, theirs, theirsRedis] = [oursStarted.ready, theirsStarted.ready, theirsRedisStarted?.ready];
  const ddbPeerPid = theirsDdbStarted && peerDynamoDb ? peerDynamoDb.pid : undefined;
  results.meta.dynamodbPeer = ddbPeerPid ? { endpoint: peerDynamoDb!.endpoint } : { missing: dynamodbPeerMissing };
  if (sections.has(9) && !ddbPeerPid) log(`DYNAMODB PEER MISSING: ${dynamodbPeerMissing}`);
  results.meta.liftedThrottles = ours.liftedThrottles;
  log(
    `ours at ${ours.url} (DynamoDB Local ${ours.dynamodbEndpoint}), oidc-provider at ${theirs.url}${theirsRedis ? `, oidc-provider with Redis at ${theirsRedis.url} (${redis!.url})` : ''}`,
  );

  const oursFixture = await prepareOurClient(ours.url, {
    clientId: ours.clientId,
    clientSecret: ours.clientSecret,
    managementAudience: ours.managementAudience,
  });
  const { clientSecret: _hidden, ...fixtureMeta } = oursFixture;
  results.meta.fixtures = {
    ours: fixtureMeta,
    theirs: { resource: theirs.jwtResource, scope: 'read:things', introspectedResource: theirs.opaqueResource },
  };
  log(`our benchmark client: ${oursFixture.source}${oursFixture.note ? ` (${oursFixture.note})` : ''}`);

  // ---- 1 and 2. token issuance and introspection over HTTP --------------------------------------------
  if (sections.has(1) || sections.has(2)) {
    const oursSut: ServerUnderTest = {
      name: 'ours',
      url: ours.url,
      child: oursChild,
      clientId: oursFixture.clientId,
      clientSecret: oursFixture.clientSecret,
      tokenParams: { resource: oursFixture.resource, scope: oursFixture.scope },
      introspectParams: { resource: oursFixture.resource, scope: oursFixture.scope },
      tokenPath: '/token',
      introspectPath: '/tokeninfo',
      revokePath: '/revoke',
    };
    const theirSut = (t: TheirsReady, child: ChildProcess, name: string, dbPids?: number[]): ServerUnderTest => ({
      name,
      url: t.url,
      child,
      clientId: t.clientId,
      clientSecret: t.clientSecret,
      tokenParams: { resource: t.jwtResource, scope: 'read:things' },
      // oidc-provider refuses to introspect JWT access tokens: its side introspects opaque ones.
      introspectParams: { resource: t.opaqueResource, scope: 'read:things' },
      tokenPath: '/token',
      introspectPath: '/token/introspection',
      revokePath: '/token/revocation',
      ...(dbPids ? { dbPids } : {}),
    });
    const peers = [theirSut(theirs, theirsChild, 'oidc-provider (memory)')];
    if (theirsRedis && theirsRedisChild && redis)
      peers.push(theirSut(theirsRedis, theirsRedisChild, 'oidc-provider (Redis)', [redis.child.pid!]));
    const http = await section('1-2 http', () =>
      benchHttp(oursSut, peers, {
        connections: opts.connections,
        durationS: opts.durationS,
        warmupS: opts.warmupS,
        rounds: opts.rounds,
        passes: opts.passes,
        poolLarge: opts.introspectionPoolLarge,
        poolSmall: opts.introspectionPoolSmall,
        openLoopS: opts.openLoopS,
        openLoopWarmupS: opts.openLoopWarmupS,
        openLoopShares: opts.openLoopShares,
        sweepS: opts.sweepS,
        sweepConnections: opts.sweepConnections,
        token: sections.has(1),
        introspection: sections.has(2),
        log,
      }),
    );
    if ('error' in http) results.errors.push({ section: '1-2 http', message: http.error });
    else results.http = http;
  }
  // ---- 9. user flows over HTTP: password ÷ argon2id, refresh and /userinfo side by side ----------
  if (sections.has(9)) {
    const theirUser = (t: TheirsReady, child: ChildProcess, name: string, dbPids?: number[]) => ({
      name,
      url: t.url,
      procs: { pid: child.pid, dbPids: dbPids ?? [] },
      refreshClientId: t.refreshClientId,
      refreshClientSecret: t.refreshClientSecret,
    });
    const users = await section('9 users', () =>
      benchUserFlows({
        ours: {
          name: 'ours',
          url: ours.url,
          procs: { pid: oursChild.pid },
          admin: { clientId: ours.clientId, clientSecret: ours.clientSecret, managementAudience: ours.managementAudience },
        },
        theirs: [
          theirUser(theirs, theirsChild, 'oidc-provider (memory)'),
          ...(theirsRedis && theirsRedisChild && redis
            ? [theirUser(theirsRedis, theirsRedisChild, 'oidc-provider (Redis)', [redis.child.pid!])]
            : []),
          ...(theirsDdbStarted && ddbPeerPid
            ? [theirUser(theirsDdbStarted.ready, theirsDdbStarted.child, DYNAMODB_PEER, [ddbPeerPid])]
            : []),
        ],
        passwordSamples: opts.passwordSamples,
        passwordWarmupGrants: opts.passwordWarmupGrants,
        // The peer's database joins the server core once the password latency is measured (proc.ts).
        afterPasswordLatency: () => {
          if (peerDynamoDb && canPin() && !pinProcess(peerDynamoDb.pid, SERVER_CORE))
            throw new Error('taskset could not move the peer DynamoDB Local');
        },
        compare: {
          connections: opts.connections,
          durationS: opts.durationS,
          warmupS: opts.warmupS,
          rounds: opts.rounds,
          passes: opts.passes,
          log,
        },
        log,
      }),
    );
    results.users = users;
  }
  // oidc-provider, Redis and the peer's DynamoDB Local are done; free their core.
  await Promise.all([
    stopChild(theirsChild),
    theirsRedisChild && stopChild(theirsRedisChild),
    redis && stopChild(redis.child),
    theirsDdbStarted && stopChild(theirsDdbStarted.child),
    peerDynamoDb?.stop(),
  ]);

  // ---- in-process stack: envelope key mode, fake KMS, metered DynamoDB ---------------------------------
  const needInproc = [3, 4, 5, 6, 7, 8, 9, 10].some((s) => sections.has(s));
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
    inprocFixture = await prepareOurClient(inproc.url, {
      clientId: DEFAULT_CLIENT_ID,
      clientSecret: DEFAULT_CLIENT_SECRET,
      managementAudience: inproc.runtime.config.managementAudience,
    });
    log(`in-process stack at ${inproc.url} (envelope mode, fake KMS: ${JSON.stringify(kms.calls())})`);
  }

  // ---- 3. the limit -------------------------------------------------------------------------------------
  if (sections.has(3) && inproc && meter && inprocFixture) {
    const rt = inproc.runtime;
    const m = meter;
    const f = inprocFixture;
    results.limits = await section('3 limits', () =>
      benchLimits({
        runtime: rt,
        fixture: f,
        meter: m,
        kmsTotal: () => kms.total(),
        seconds: opts.inProcessSeconds,
        uncachedPool: opts.introspectionPoolLarge,
        log,
      }),
    );
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
          fetchToken(st.url, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, {
            audience: st.runtime.config.managementAudience,
            ...(scope ? { scope } : {}),
          }),
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

  // ---- 5. cold start: envelope key mode, KMS through the HTTP stand-in (a bundle has its own SDK) -------------
  if (sections.has(5) && inproc) {
    const st = inproc;
    const kmsStandIn = await startKmsStandIn();
    const cs = await section('5 cold start', () =>
      benchColdStart({
        workDir: WORK,
        runs: opts.coldRuns,
        tokenRuns: opts.coldTokenRuns,
        env: {
          ...envelopeEnv(st.runtime.config.issuer),
          AWS_ENDPOINT_URL_KMS: kmsStandIn.url,
          AWS_ACCESS_KEY_ID: 'bench',
          AWS_SECRET_ACCESS_KEY: 'bench',
          POWERTOOLS_SERVICE_NAME: 'identity-service',
          POWERTOOLS_LOG_LEVEL: 'INFO',
        },
        target: {
          issuer: st.runtime.config.issuer,
          clientId: DEFAULT_CLIENT_ID,
          clientSecret: DEFAULT_CLIENT_SECRET,
          audience: st.runtime.config.managementAudience,
        },
        log,
      }),
    ).finally(() => kmsStandIn.close());
    results.coldStart = 'error' in cs ? undefined : { ...cs, kmsStandInCalls: kmsStandIn.calls() };
    log(`cold start: KMS stand-in calls ${JSON.stringify(kmsStandIn.calls())}`);
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
    const mgmt = await fetchToken(st.url, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, {
      audience: st.runtime.config.managementAudience,
      scope: 'read:clients',
    }).catch(() => '');
    const mgmtKeys = await fetchToken(st.url, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, {
      audience: st.runtime.config.managementAudience,
    }).catch(() => '');
    const probes: { operation: string; handler: string; event: Parameters<typeof probeOperation>[0]['event'] }[] = [
      {
        operation: 'POST /token (client_credentials)',
        handler: 'functions/oauth/token',
        event: { method: 'POST', resource: '/token', headers: { Authorization: auth, 'Content-Type': FORM }, body: tokenBody },
      },
      {
        operation: 'POST /tokeninfo',
        handler: 'functions/oauth/tokeninfo',
        event: { method: 'POST', resource: '/tokeninfo', headers: { Authorization: auth, 'Content-Type': FORM }, body: `token=${token}` },
      },
      {
        operation: 'POST /introspect',
        handler: 'functions/oauth/introspect',
        event: { method: 'POST', resource: '/introspect', headers: { Authorization: auth, 'Content-Type': FORM }, body: `token=${token}` },
      },
      {
        operation: 'GET /.well-known/jwks.json',
        handler: 'functions/oauth/jwks',
        event: { method: 'GET', resource: '/.well-known/jwks.json' },
      },
      {
        operation: 'GET /identity/v1/clients?limit=50 (read:clients)',
        handler: 'functions/clients/list-clients',
        event: { method: 'GET', resource: '/identity/v1/clients', headers: { Authorization: `Bearer ${mgmt}` }, query: { limit: '50' } },
      },
      {
        operation: 'GET /identity/v1/clients?limit=50 (caller with read:client_keys)',
        handler: 'functions/clients/list-clients',
        event: {
          method: 'GET',
          resource: '/identity/v1/clients',
          headers: { Authorization: `Bearer ${mgmtKeys}` },
          query: { limit: '50' },
        },
      },
    ];
    for (const p of probes) {
      const r = await probeOperation({ ...p, env, warm: 200 });
      operations.push(r);
      log(
        `ddb: ${p.operation}: cold ${r.cold ? `${r.cold.ddbCalls} calls ${r.cold.rru} RRU, KMS ${r.cold.kmsCalls}` : r.error?.slice(0, 120)}; warm ${r.warm ? `${r.warm.ddbCalls} calls/request` : '-'}`,
      );
    }
    if (results.limits && 'tokenRun' in results.limits) {
      const tr = results.limits.tokenRun;
      operations.push({
        operation: 'POST /token, sustained (section 3 run)',
        cold: null,
        warm: {
          ddbCalls: tr.ddb.calls / tr.tokens,
          reads: tr.ddbReadsPerToken,
          rru: tr.rruPerToken,
          wru: tr.ddb.wcu / tr.tokens,
          kmsCalls: tr.kmsPerToken,
          requests: tr.tokens,
        },
        note: `${Math.round(tr.tokens / (opts.inProcessSeconds + 1))} tokens/s for ${opts.inProcessSeconds + 1} s`,
        status: 200,
      });
    }
    if (results.lists && 'sizes' in results.lists) {
      for (const s of results.lists.sizes) {
        for (const [name, st2] of [
          ['list first page', s.firstPage],
          ['list offset 900', s.offset900],
          ['list via cursor', s.cursor],
          ['list first page, read:client_keys', s.firstPageWithSecrets],
          ['create client', s.create],
        ] as const) {
          if (!st2.samples) continue;
          operations.push({
            operation: `${name} @ ${s.clients.toLocaleString('en-US')} clients (HTTP)`,
            cold: null,
            warm: { ddbCalls: st2.ddbCalls, reads: NaN, rru: st2.rru, wru: st2.wru, kmsCalls: st2.kmsCalls, requests: st2.samples },
            status: st2.status,
          });
        }
      }
    }
    results.ddb = { operations };
  }

  // ---- 9. user flows: DynamoDB reads and writes per request, on the metered in-process stack ----------------
  if (sections.has(9) && inproc && meter) {
    const st = inproc;
    const m = meter;
    const users: UserFlowsResult = results.users && !('error' in results.users) ? results.users : { missing: [], ddb: [], notes: [] };
    users.ddb = await userFlowCosts(
      {
        side: {
          name: 'ours (in process)',
          url: st.url,
          procs: {},
          admin: {
            clientId: DEFAULT_CLIENT_ID,
            clientSecret: DEFAULT_CLIENT_SECRET,
            managementAudience: st.runtime.config.managementAudience,
          },
        },
        meter: m,
      },
      opts.userFlowRequests,
      users.missing,
      log,
    );
    results.users = users;
  }

  // ---- 10. RBAC: tokens for a user 10 levels deep, a role added to a group of 10,000 members ----------------
  if (sections.has(10) && inproc && meter) {
    const st = inproc;
    const m = meter;
    results.rbac = await section('10 rbac', () =>
      benchRbac({
        url: st.url,
        runtime: st.runtime,
        admin: {
          clientId: DEFAULT_CLIENT_ID,
          clientSecret: DEFAULT_CLIENT_SECRET,
          managementAudience: st.runtime.config.managementAudience,
        },
        meter: m,
        members: opts.rbacMembers,
        warmRequests: opts.rbacWarmRequests,
        log,
      }),
    );
  }

  // ---- 11. the authorization-code flow, in a process of its own -----------------------------------
  if (sections.has(11)) {
    results.authorizeFlow = await section('11 authorization-code flow', () => benchAuthorizeFlow({ flows: opts.authorizeFlows, log }));
  }

  // ---- 8. memory: the token function after many tokens ----------------------------------------------------------
  if (sections.has(8) && inproc && inprocFixture) {
    const st = inproc;
    const f = inprocFixture;
    results.leak = await section('8 memory', () =>
      benchLeak({
        env: envelopeEnv(st.runtime.config.issuer),
        event: {
          method: 'POST',
          resource: '/token',
          headers: { Authorization: basicAuth(f.clientId, f.clientSecret), 'Content-Type': FORM },
          body: new URLSearchParams({ grant_type: 'client_credentials', resource: f.resource, scope: f.scope }).toString(),
        },
        tokens: opts.leakTokens,
        log,
      }),
    );
  }

  // ---- 7. cost -----------------------------------------------------------------------------------------------
  if (sections.has(7)) {
    // What metrics and traces add per token (docs/operations.md "Metrics and traces"), side by side in a process of its own.
    results.observability = await section('7 metrics and traces', () =>
      benchObservability({ dynamodbEndpoint: ours.dynamodbEndpoint, slices: quick ? 4 : 10, sliceMs: 300 }),
    );
    results.cost = await section('7 cost', async () => {
      const lim = results.limits && 'tokenRun' in results.limits ? results.limits : undefined;
      const tokenOp = results.ddb?.operations.find((o) => o.operation === 'POST /token (client_credentials)');
      if (!lim) throw new Error('needs section 3 (handler CPU time per token)');
      const { FUNCTION_MEMORY_MB, accessLogFormat } = await import('../infra/constructs/route-api.ts');
      const memoryMb = FUNCTION_MEMORY_MB['functions/oauth/token'] ?? 512;
      const platform = platformLogBytes(memoryMb);
      const cost = costPerMillion({
        handlerUsPerToken: lim.breakdownUs.total,
        memoryMb,
        warmRruPerToken: lim.tokenRun.rruPerToken,
        warmKmsPerToken: lim.tokenRun.kmsPerToken,
        coldRru: tokenOp?.cold?.rru ?? 0,
        coldKmsCalls: tokenOp?.cold?.kmsCalls ?? 1,
        coldInitMs: results.coldStart?.token?.readyMs ?? 150,
        coldStartsPerMillion: opts.coldStartsPerMillion,
        logs: {
          functionBytes: lim.logBytesPerToken,
          functionEvents: lim.logLinesPerToken,
          platformBytes: platform.bytes,
          platformEvents: platform.events,
          accessBytes: accessLogBytes(accessLogFormat().toString(), lim.responseBytes),
          ...metricsLogBytes(results.observability),
        },
      });
      const leak = results.leak && 'peakRssMb' in results.leak ? results.leak : undefined;
      const coldReady = results.coldStart?.token?.readyMs;
      return {
        ...cost,
        memory:
          leak && coldReady
            ? memoryOptions({ handlerUsPerToken: lim.breakdownUs.total, coldReadyMs: coldReady, peakRssMb: leak.peakRssMb })
            : undefined,
      };
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
// Every run's report goes to bench/results/runs/ (not committed). Only a full run with the default
// settings from a clean tree, without a setup failure, becomes latest.*: the committed reference.
const stamp = `${results.meta.startedAt.replace(/[:.]/g, '-')}-${results.meta.commit.slice(0, 10)}${results.meta.dirty ? '-dirty' : ''}${fullRun ? '' : '-partial'}`;
const RUNS = join(RESULTS, 'runs');
mkdirSync(RUNS, { recursive: true });
writeFileSync(join(RUNS, `${stamp}.json`), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(join(RUNS, `${stamp}.md`), `${md}\n`);
writeReport(`${md}\n`);
const why = results.meta.dirty
  ? 'the git tree has uncommitted changes (commit them, or the report would not say what was measured)'
  : !fullRun
    ? 'this was not a full run (--quick, --sections or a changed setting)'
    : results.errors.some((e) => e.section === 'setup')
      ? 'the setup failed'
      : undefined;
if (why) {
  log(`NOT written to bench/results/latest.*: ${why}. This run's report: bench/results/runs/${stamp}.md`);
} else {
  writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(RESULTS, 'latest.md'), `${md}\n`);
  log(`wrote bench/results/latest.json and latest.md (and runs/${stamp}.*) in ${Math.round(results.meta.durationS)} s`);
}
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
