import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { handlerModules, ROUTES } from '#shared/routes/route-table.ts';
import { esbuildOptionsOf } from '../../infra/bundling/esbuild-options.ts';
import { BUNDLING, FUNCTION_NODE_FLAGS } from '../../infra/constructs/service-function.ts';
import { writeApiDocs } from '../../infra/openapi/write-api-docs.ts';
import { basicAuth, type EventSpec, FORM, proxyEvent } from '../lib/api-event.ts';
import { LOAD_CORE, pinSelf, runNode } from '../lib/proc.ts';
import { median, round } from '../lib/stats.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** Not in the route table but deployed as functions (infra/constructs/route-api.ts, key-rotation.ts). */
const EXTRA_HANDLERS = ['functions/http/fallback', 'functions/keys/rotate-keys'];

export interface BundleResult {
  handler: string;
  bytes: number;
  gzipBytes: number;
  /** The same bundle with `@aws-sdk/*` and `@smithy/*` external (taken from Lambda's runtime instead). */
  sdkExternalBytes: number | null;
  /** The three largest contributors (npm package or our top folder) by bytes in the bundle. */
  topInputs: { input: string; bytes: number }[];
  /** Fresh process → first handled event, ms: median over runs, and the parts. */
  readyMs: number | null;
  /** Process start to the probe's first line (Node's own start), then the module import, then the first event. */
  bootMs: number | null;
  importMs: number | null;
  handleMs: number | null;
  /** Spawn to exit as the parent sees it (includes process teardown). */
  wallMs: number | null;
  runs: number;
  event: string;
  status: number | null;
  error?: string;
}

export interface ColdStartResult {
  esbuild: string;
  awsSdk: 'bundled';
  /** The flags the functions start node with (`FUNCTION_NODE_FLAGS`), and so every probe here. */
  nodeFlags: string[];
  bundles: BundleResult[];
  missing: string[];
  largest: string[];
  token: BundleResult | undefined;
  /** The token handler started with `--enable-source-maps` added (what the flag would cost at start). */
  tokenWithSourceMaps: { readyMs: number | null; importMs: number | null; runs: number; error?: string } | undefined;
  /** The token handler with the SDK external, resolved from node_modules as Lambda resolves its runtime SDK. */
  tokenSdkExternal: { bytes: number; readyMs: number | null; importMs: number | null; runs: number; error?: string } | undefined;
  buildMs: number;
}

/** The construct's own translation of its bundling options (the one the CDK app builds with). */
export { esbuildOptionsOf };

/** What each handler is sent: a real request where one is cheap, else an unauthenticated one (401/400): module load + pipeline either way. */
function eventFor(
  handler: string,
  target: { issuer: string; clientId: string; clientSecret: string; audience: string },
): { spec: EventSpec; label: string } | undefined {
  if (handler === 'functions/oauth/token') {
    const body = new URLSearchParams({ grant_type: 'client_credentials', audience: target.audience, scope: 'read:clients' }).toString();
    return {
      spec: {
        method: 'POST',
        resource: '/token',
        headers: { Authorization: basicAuth(target.clientId, target.clientSecret), 'Content-Type': FORM },
        body,
      },
      label: 'client_credentials token (real)',
    };
  }
  if (handler === 'functions/http/fallback')
    return { spec: { method: 'GET', resource: '/{proxy+}', path: '/no-such-path' }, label: 'unknown path (404)' };
  if (handler === 'functions/keys/rotate-keys') return undefined;
  const route = ROUTES.find((r) => r.handler === handler)!;
  const params = Object.fromEntries([...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => [m[1]!, '0190a0a0-0000-7000-8000-000000000000']));
  const path = route.path.replace(/\{[a-z_]+\}/g, '0190a0a0-0000-7000-8000-000000000000');
  const real = route.auth.type === 'none';
  return {
    spec: {
      method: route.method,
      resource: route.path,
      path,
      ...(Object.keys(params).length ? { pathParameters: params } : {}),
      ...(route.method === 'POST' && route.auth.type === 'client' ? { headers: { 'Content-Type': FORM }, body: 'token=x' } : {}),
    },
    label: real ? `${route.method} ${route.path} (real)` : `${route.method} ${route.path} without credentials`,
  };
}

/**
 * Bundles every handler the way the CDK app does (infra/constructs/service-function.ts: esbuild,
 * ESM, minified, node24, platform node, source map without sources, main fields module/main, the
 * AWS SDK v3 bundled, the createRequire banner), then starts each bundle in fresh `node` processes
 * (pinned to one core, with the function's node flags, `FUNCTION_NODE_FLAGS`) against the running
 * DynamoDB Local and measures the time to the first handled event.
 */
export async function benchColdStart(o: {
  workDir: string;
  runs: number;
  tokenRuns: number;
  env: Record<string, string>;
  target: { issuer: string; clientId: string; clientSecret: string; audience: string };
  log: (line: string) => void;
  /** Only these handler modules (a test's subset); all of them when left out. */
  only?: readonly string[];
}): Promise<ColdStartResult> {
  const dir = join(o.workDir, 'bundles');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const all = [...handlerModules(), ...EXTRA_HANDLERS].filter((h) => !o.only || o.only.includes(h));
  const present = all.filter((h) => existsSync(join(ROOT, `${h}.ts`)));
  const missing = all.filter((h) => !present.includes(h));
  const common = {
    // NodejsFunction runs esbuild from the project root (BUNDLING's alias path is relative to it).
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(present.map((h) => [h, join(ROOT, `${h}.ts`)])),
    outExtension: { '.js': '.mjs' },
    ...esbuildOptionsOf(BUNDLING),
    metafile: true,
    logLevel: 'error' as const,
  };
  // esbuild is parallel: let it use both cores (nothing is being measured while it builds).
  pinSelf('0,1');
  const t0 = performance.now();
  let out;
  const extDir = join(dir, 'sdk-external');
  try {
    out = await build({ ...common, outdir: dir });
    await build({ ...common, outdir: extDir, external: ['@aws-sdk/*', '@smithy/*'] });
  } finally {
    pinSelf(LOAD_CORE);
  }
  const buildMs = performance.now() - t0;
  // The docs functions read files their bundling writes beside the code (the construct's
  // afterBundling hook runs infra/openapi/write-api-docs.ts): write them here too, or those
  // bundles answer 500 in this section while they answer 200 in AWS.
  const docsDir = join(dir, 'functions/docs');
  if (present.includes('functions/docs/openapi-document')) await writeApiDocs(docsDir, 'document');
  if (present.includes('functions/docs/reference-page')) await writeApiDocs(docsDir, 'page');
  o.log(`cold start: bundled ${present.length} handlers in ${Math.round(buildMs)} ms (${missing.length} not written yet)`);
  const meta: Metafile = out.metafile!;
  const esbuildVersion = (JSON.parse(readFileSync(join(ROOT, 'node_modules/esbuild/package.json'), 'utf8')) as { version: string }).version;

  const bundles: BundleResult[] = [];
  const probe = join(ROOT, 'bench/probes/cold-start.mjs');
  for (const h of present) {
    const file = join(dir, `${h}.mjs`);
    const bytes = statSync(file).size;
    const gzipBytes = gzipSync(readFileSync(file)).length;
    const outMeta = meta.outputs[Object.keys(meta.outputs).find((k) => resolve(k) === resolve(file))!]!;
    const byInput = new Map<string, number>();
    for (const [input, { bytesInOutput }] of Object.entries(outMeta.inputs)) {
      const nm = input.lastIndexOf('node_modules/');
      let key: string;
      if (nm >= 0) {
        const parts = input.slice(nm + 13).split('/');
        key = parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
        if (key.startsWith('@aws-sdk/') || key.startsWith('@smithy/')) key = key.startsWith('@aws-sdk/') ? '@aws-sdk/*' : '@smithy/*';
      } else key = `${input.split('/')[0]}/ (ours)`;
      byInput.set(key, (byInput.get(key) ?? 0) + bytesInOutput);
    }
    const topInputs = [...byInput.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([input, b]) => ({ input, bytes: b }));

    const ev = eventFor(h, o.target);
    let sdkExternalBytes: number | null = null;
    try {
      sdkExternalBytes = statSync(join(extDir, `${h}.mjs`)).size;
    } catch {
      /* not built */
    }
    const result: BundleResult = {
      handler: h,
      bytes,
      gzipBytes,
      sdkExternalBytes,
      topInputs,
      readyMs: null,
      bootMs: null,
      importMs: null,
      handleMs: null,
      wallMs: null,
      runs: 0,
      event: ev?.label ?? 'not invoked (scheduled job; invoking would rotate the keys)',
      status: null,
    };
    if (ev) {
      const eventFile = join(dir, `${h.replace(/\//g, '_')}.event.json`);
      writeFileSync(eventFile, JSON.stringify(proxyEvent(ev.spec)));
      const runs = h === 'functions/oauth/token' ? o.tokenRuns : o.runs;
      const samples: { readyMs: number; bootMs: number; importMs: number; handleMs: number; wallMs: number; status: number | null }[] = [];
      try {
        for (let i = 0; i < runs; i++) {
          const { stdout, wallMs } = await runNode([...FUNCTION_NODE_FLAGS, probe, file, eventFile], {
            core: LOAD_CORE,
            // Lambda sets LAMBDA_TASK_ROOT to the folder holding the function's code.
            env: { ...o.env, LAMBDA_TASK_ROOT: dirname(file) },
            timeoutMs: 30_000,
          });
          const line = stdout
            .split('\n')
            .reverse()
            .find((l) => l.startsWith('BENCH_RESULT '));
          if (!line) throw new Error(`no result line: ${stdout.slice(-300)}`);
          samples.push({
            ...(JSON.parse(line.slice(13)) as {
              readyMs: number;
              bootMs: number;
              importMs: number;
              handleMs: number;
              status: number | null;
            }),
            wallMs,
          });
        }
        result.runs = samples.length;
        result.readyMs = round(median(samples.map((s) => s.readyMs)));
        result.bootMs = round(median(samples.map((s) => s.bootMs)));
        result.importMs = round(median(samples.map((s) => s.importMs)));
        result.handleMs = round(median(samples.map((s) => s.handleMs)));
        result.wallMs = round(median(samples.map((s) => s.wallMs)));
        result.status = samples.at(-1)!.status;
        // A cold bundle that cannot answer is a broken function, not a slow one: say so in the report.
        if ((result.status ?? 0) >= 500) result.error = `answered ${result.status} to ${result.event}`;
      } catch (err) {
        result.error = (err as Error).message.slice(0, 400);
      }
    }
    bundles.push(result);
    o.log(
      `cold start: ${h} ${(bytes / 1024).toFixed(0)} KB, ready ${result.readyMs ?? '-'} ms (status ${result.status ?? '-'})${result.error ? ` ERROR ${result.error.slice(0, 120)}` : ''}`,
    );
  }
  // The token handler twice more: with --enable-source-maps, and with the SDK external (imports
  // resolve to node_modules, as Lambda resolves its runtime SDK).
  const variant = async (nodeArgs: string[], bundle: string) => {
    const samples: { readyMs: number; importMs: number }[] = [];
    let error: string | undefined;
    try {
      for (let i = 0; i < o.tokenRuns; i++) {
        const { stdout } = await runNode([...nodeArgs, probe, bundle, tokenEvent], { core: LOAD_CORE, env: o.env, timeoutMs: 30_000 });
        const line = stdout
          .split('\n')
          .reverse()
          .find((l) => l.startsWith('BENCH_RESULT '));
        if (!line) throw new Error(`no result line: ${stdout.slice(-300)}`);
        samples.push(JSON.parse(line.slice(13)) as { readyMs: number; importMs: number });
      }
    } catch (err) {
      error = (err as Error).message.slice(0, 300);
    }
    return {
      readyMs: samples.length ? round(median(samples.map((x) => x.readyMs))) : null,
      importMs: samples.length ? round(median(samples.map((x) => x.importMs))) : null,
      runs: samples.length,
      ...(error ? { error } : {}),
    };
  };
  let tokenSdkExternal: ColdStartResult['tokenSdkExternal'];
  let tokenWithSourceMaps: ColdStartResult['tokenWithSourceMaps'];
  const tokenFile = join(dir, 'functions/oauth/token.mjs');
  const tokenExt = join(extDir, 'functions/oauth/token.mjs');
  const tokenEvent = join(dir, 'functions_oauth_token.event.json');
  if (existsSync(tokenFile) && existsSync(tokenEvent)) {
    tokenWithSourceMaps = await variant([...new Set([...FUNCTION_NODE_FLAGS, '--enable-source-maps'])], tokenFile);
    o.log(`cold start: token handler with --enable-source-maps: ready ${tokenWithSourceMaps.readyMs ?? '-'} ms`);
  }
  if (existsSync(tokenExt) && existsSync(tokenEvent)) {
    tokenSdkExternal = { bytes: statSync(tokenExt).size, ...(await variant([...FUNCTION_NODE_FLAGS], tokenExt)) };
    o.log(
      `cold start: token handler with the SDK external: ${(tokenSdkExternal.bytes / 1024).toFixed(0)} KB, ready ${tokenSdkExternal.readyMs ?? '-'} ms`,
    );
  }
  const largest = [...bundles]
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5)
    .map((b) => b.handler);
  return {
    esbuild: esbuildVersion,
    awsSdk: 'bundled',
    nodeFlags: [...FUNCTION_NODE_FLAGS],
    bundles,
    missing,
    largest,
    token: bundles.find((b) => b.handler === 'functions/oauth/token'),
    tokenSdkExternal,
    tokenWithSourceMaps,
    buildMs: Math.round(buildMs),
  };
}
