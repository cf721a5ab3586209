/**
 * `npm run bench:login-ab -- --base=<commit|dir> [--head=worktree|<commit>|<dir>] [--runs=9]`: the
 * login function's bundle and ready time, and the token function's bundle, of two trees side by
 * side (docs/benchmarks.md "Login function with passkeys").
 *
 * Each tree's `functions/pages/login.ts` and `functions/oauth/token.ts` are bundled as the CDK app
 * bundles them (the tree's own construct options through its `esbuildOptionsOf`, and its
 * `FUNCTION_OUTPUT_LAYOUT`: the entry and chunks). "Bundle" is what a cold start loads, as
 * test/bench/token-bundle-size.test.ts counts it: the entry and the chunks it imports statically;
 * what only an `import()` reaches is reported apart ("lazy"). Then each login bundle is started in
 * fresh `node` processes (bench/probes/cold-start.mjs), alternating between the trees, each handling
 * one real `GET /login?interaction=` against DynamoDB Local: the page a browser gets when
 * /authorize sends it to sign in (the interaction read, the password form rendered). "Ready" is
 * the time from the process's start to that response, median over the runs.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { startDynamoDbLocal } from '../infra/local/dynamodb-local.ts';
import { startLocalStack } from '../infra/local/local-stack.ts';
import { basicAuth, FORM, proxyEvent } from './lib/api-event.ts';
import { FAKE_KMS_KEY_ARN, installFakeKms } from './lib/fake-kms.ts';
import { startKmsStandIn } from './lib/kms-stand-in.ts';
import { runNode } from './lib/proc.ts';
import { median } from './lib/stats.ts';
import { UNTHROTTLED } from './lib/throttles.ts';
import { treeExports } from './lib/tree-export.ts';

const ROOT = resolve(import.meta.dirname, '..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const base = arg('base');
if (!base) throw new Error('--base=<commit|dir> is required');
const head = arg('head') ?? 'worktree';
const runs = Number(arg('runs') ?? 9);
const CLIENT_ID = '0190a0a0-bbbb-7000-8000-00000000c1c1';
const CLIENT_SECRET = 'bench-login-ab-default-client-secret-0123456789abcdef';
const REDIRECT = 'https://app.bench.example/cb';

const { git, temp, exportTree, remove } = treeExports(ROOT, 'bench-login-ab-');

interface Bundle {
  /** Bytes a cold start loads: the entry and the chunks it imports statically. */
  bytes: number;
  gzipBytes: number;
  /** Bytes of the chunks only an `import()` reaches. */
  lazyBytes: number;
  /** Inputs (npm packages or our folders) of the statically loaded part that are passkey code. */
  passkeyInputs: string[];
  lazyPasskeyInputs: string[];
  entryFile: string;
}
interface Tree {
  name: string;
  login: Bundle;
  token: Bundle;
  samples: { readyMs: number; bootMs: number; importMs: number; handleMs: number; importCpuMs: number; readyCpuMs: number }[];
}

const PASSKEY_CODE = /node_modules\/@simplewebauthn\/|^shared\/browser\/passkeys\//;

/** The entry and every chunk it imports statically, transitively (as the token bundle test counts). */
function staticallyLoaded(outputs: Metafile['outputs']): string[] {
  const entry = Object.keys(outputs).find((o) => outputs[o]!.entryPoint)!;
  const seen = new Set([entry]);
  const queue = [entry];
  for (let next = queue.pop(); next !== undefined; next = queue.pop())
    for (const i of outputs[next]!.imports)
      if (i.kind === 'import-statement' && !i.external && !seen.has(i.path)) {
        seen.add(i.path);
        queue.push(i.path);
      }
  return [...seen];
}

async function bundleOf(root: string, name: string, entry: string): Promise<Bundle> {
  const from = async <T>(path: string) => (await import(pathToFileURL(join(root, path)).href)) as T;
  const construct = await from<{ BUNDLING: Record<string, unknown> }>('infra/constructs/service-function.ts');
  const { esbuildOptionsOf } = await from<typeof import('../infra/bundling/esbuild-options.ts')>('infra/bundling/esbuild-options.ts');
  const { FUNCTION_OUTPUT_LAYOUT } = await from<typeof import('../infra/bundling/bundle-function.ts')>('infra/bundling/bundle-function.ts');
  const outdir = join(temp, 'bundles', name);
  mkdirSync(outdir, { recursive: true });
  const out = await build({
    ...esbuildOptionsOf(construct.BUNDLING),
    ...FUNCTION_OUTPUT_LAYOUT,
    absWorkingDir: root,
    entryPoints: [join(root, entry)],
    outdir,
    metafile: true,
    logLevel: 'error',
  });
  const outputs = out.metafile.outputs;
  const loaded = staticallyLoaded(outputs);
  const code = Object.keys(outputs).filter((o) => o.endsWith('.mjs'));
  const lazy = code.filter((o) => !loaded.includes(o));
  const sum = (os: string[]) => os.reduce((s, o) => s + outputs[o]!.bytes, 0);
  const inputsOf = (os: string[]) => [
    ...new Set(
      os.flatMap((o) => Object.keys(outputs[o]!.inputs)).map((i) => i.replace(/^.*node_modules\/(@[^/]+\/[^/]+|[^/]+)\/.*$/, '$1')),
    ),
  ];
  const passkeys = (os: string[]) =>
    inputsOf(os).filter((i) => PASSKEY_CODE.test(i) || i.startsWith('@simplewebauthn/') || i.startsWith('@peculiar/'));
  const abs = (o: string) => (isAbsolute(o) ? o : join(root, o));
  return {
    bytes: sum(loaded),
    gzipBytes: loaded.reduce((s, o) => s + gzipSync(readFileSync(abs(o))).length, 0),
    lazyBytes: sum(lazy),
    passkeyInputs: passkeys(loaded),
    lazyPasskeyInputs: passkeys(lazy),
    entryFile: abs(loaded[0]!),
  };
}

async function treeOf(name: string, root: string): Promise<Tree> {
  const slug = name.replace(/\W+/g, '-');
  return {
    name,
    login: await bundleOf(root, `${slug}-login`, 'functions/pages/login.ts'),
    token: await bundleOf(root, `${slug}-token`, 'functions/oauth/token.ts'),
    samples: [],
  };
}

const rootOf = (ref: string) => (existsSync(ref) && statSync(ref).isDirectory() ? resolve(ref) : exportTree(ref));
/** A commit by its short hash; a directory by its path (and its commit when it is a git work tree). */
function labelOf(ref: string): string {
  if (!existsSync(ref)) return git('rev-parse', '--short', ref);
  try {
    return `${ref} (${git('-C', resolve(ref), 'rev-parse', '--short', 'HEAD')})`;
  } catch {
    return ref;
  }
}

const kms = installFakeKms();
const ddb = await startDynamoDbLocal({ dataDir: null });
const table = `login-ab-${process.pid}`;
const stack = await startLocalStack({
  port: 0,
  dataDir: null,
  dynamodbEndpoint: ddb.endpoint,
  tableName: table,
  stageThrottle: UNTHROTTLED,
  defaultClientId: CLIENT_ID,
  defaultClientSecret: CLIENT_SECRET,
  env: { KEY_MODE: 'envelope', KMS_KEY_ID: FAKE_KMS_KEY_ARN, AWS_REGION: 'us-east-1', STAGE: 'bench' },
});
const standIn = await startKmsStandIn();
try {
  const trees = [
    await treeOf(`base ${labelOf(base)}`, rootOf(base)),
    head === 'worktree'
      ? await treeOf(`head (working tree${git('status', '--porcelain', '--untracked-files=no') ? ', dirty' : ''})`, ROOT)
      : await treeOf(`head ${labelOf(head)}`, rootOf(head)),
  ];

  // One interaction, as /authorize leaves it for a browser that must sign in: every probe shows its login page.
  const { config } = stack.runtime;
  const tokenRes = await fetch(`${stack.url}/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(CLIENT_ID, CLIENT_SECRET), 'content-type': FORM },
    body: new URLSearchParams({ grant_type: 'client_credentials', audience: config.managementAudience, scope: 'create:clients' }),
  });
  if (tokenRes.status !== 200) throw new Error(`admin token: ${tokenRes.status} ${await tokenRes.text()}`);
  const admin = ((await tokenRes.json()) as { access_token: string }).access_token;
  const created = await fetch(`${stack.url}/identity/v1/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'bench login',
      is_public: true,
      client_metadata: { grant_types: ['authorization_code'], urls: { redirect_uris: [REDIRECT] } },
    }),
  });
  if (created.status !== 201) throw new Error(`client: ${created.status} ${await created.text()}`);
  const clientId = ((await created.json()) as { id: string }).id;
  const authorize = await fetch(
    `${stack.url}/authorize?${new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid',
      state: randomBytes(8).toString('hex'),
      code_challenge: randomBytes(32).toString('base64url'),
      code_challenge_method: 'S256',
    })}`,
    { redirect: 'manual' },
  );
  const interaction = new URL(authorize.headers.get('location') ?? '', stack.url).searchParams.get('interaction');
  if (authorize.status !== 303 || !interaction) throw new Error(`authorize: ${authorize.status} ${authorize.headers.get('location')}`);
  const eventFile = join(temp, 'login.event.json');
  writeFileSync(
    eventFile,
    JSON.stringify(
      proxyEvent({
        method: 'GET',
        resource: '/login',
        headers: { Accept: 'text/html', Host: new URL(stack.url).host },
        query: { interaction },
      }),
    ),
  );
  const env = {
    PATH: process.env.PATH ?? '',
    TABLE_NAME: table,
    DYNAMODB_ENDPOINT: ddb.endpoint,
    AWS_REGION: 'us-east-1',
    ISSUER: config.issuer,
    STAGE: 'bench',
    KEY_MODE: 'envelope',
    KMS_KEY_ID: FAKE_KMS_KEY_ARN,
    AWS_ENDPOINT_URL_KMS: standIn.url,
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    POWERTOOLS_SERVICE_NAME: 'identity-service',
    POWERTOOLS_LOG_LEVEL: 'INFO',
  };
  const probe = join(ROOT, 'bench/probes/cold-start.mjs');
  for (let i = 0; i < runs; i++) {
    for (const t of i % 2 === 0 ? trees : [...trees].reverse()) {
      const { stdout } = await runNode([probe, t.login.entryFile, eventFile], { env, timeoutMs: 30_000 });
      const line = stdout
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('BENCH_RESULT '));
      if (!line) throw new Error(`${t.name}: no result line: ${stdout.slice(-300)}`);
      const r = JSON.parse(line.slice(13)) as Tree['samples'][number] & { status: number };
      if (r.status !== 200) throw new Error(`${t.name}: GET /login answered ${r.status}`);
      t.samples.push(r);
    }
  }
  const r1 = (x: number) => Math.round(x * 10) / 10;
  const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
  const spread = (xs: number[]) => `${r1(median(xs))} (${r1(Math.min(...xs))}–${r1(Math.max(...xs))})`;
  console.log(
    `Login function A/B: ${runs} cold starts per tree (GET /login?interaction=, 200), alternating; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    '| tree | login bundle (bytes) | gzip | lazy chunks | passkey code loaded at start | ready ms | boot ms | import ms | first page ms | import CPU ms | CPU to ready ms | token bundle (bytes) | passkey code in token |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const t of trees) {
    const col = (k: keyof Tree['samples'][number]) => spread(t.samples.map((s) => s[k]));
    // Our passkey modules by name; @simplewebauthn/server's dependencies counted.
    const list = (xs: string[]) => {
      const ours = xs.filter((x) => x.startsWith('shared/'));
      const packages = xs.filter((x) => !x.startsWith('shared/'));
      const named = [...ours, ...(packages.length ? [`${packages.length} packages (@simplewebauthn/server and its dependencies)`] : [])];
      return named.length ? named.join(', ') : 'none';
    };
    console.log(
      `| ${t.name} | ${kb(t.login.bytes)} (${t.login.bytes}) | ${kb(t.login.gzipBytes)} | ${kb(t.login.lazyBytes)}${t.login.lazyPasskeyInputs.length ? ` (${list(t.login.lazyPasskeyInputs)})` : ''} | ${list(t.login.passkeyInputs)} | ${col('readyMs')} | ${col('bootMs')} | ${col('importMs')} | ${col('handleMs')} | ${col('importCpuMs')} | ${col('readyCpuMs')} | ${kb(t.token.bytes)} (${t.token.bytes}) | ${list([...t.token.passkeyInputs, ...t.token.lazyPasskeyInputs])} |`,
    );
  }
} finally {
  await standIn.close();
  await stack.stop();
  await ddb.stop();
  kms.restore();
  remove();
}
process.exit(0);
