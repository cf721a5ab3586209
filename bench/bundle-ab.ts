import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
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
if (!base) throw new Error('--base=<commit> is required');
const head = arg('head') ?? 'worktree';
const runs = Number(arg('runs') ?? 9);
const CLIENT_ID = '0190a0a0-bbbb-7000-8000-00000000b0b0';
const CLIENT_SECRET = 'bench-bundle-ab-default-client-secret-0123456789abcd';

const { git, temp, exportTree, remove } = treeExports(ROOT, 'bench-bundle-ab-');

interface Tree {
  name: string;
  root: string;
  bundle: string;
  bytes: number;
  gzipBytes: number;
  nodeFlags: string[];
  samples: { readyMs: number; bootMs: number; importMs: number; handleMs: number; importCpuMs: number; readyCpuMs: number }[];
}

/** The tree's token bundle, built with its own construct options, and the flags its functions start node with. */
async function bundleOf(name: string, root: string): Promise<Tree> {
  const from = async <T>(path: string) => (await import(pathToFileURL(join(root, path)).href)) as T;
  const construct = await from<Record<string, unknown>>('infra/constructs/service-function.ts');
  const { esbuildOptionsOf } = await from<typeof import('./sections/cold-start.ts')>('bench/sections/cold-start.ts');
  const outdir = join(temp, 'bundles', name.replace(/\W+/g, '-'));
  mkdirSync(outdir, { recursive: true });
  await build({
    ...esbuildOptionsOf(construct.BUNDLING as Record<string, unknown>),
    absWorkingDir: root,
    entryPoints: { token: join(root, 'functions/oauth/token.ts') },
    outExtension: { '.js': '.mjs' },
    outdir,
    logLevel: 'error',
  });
  const bundle = join(outdir, 'token.mjs');
  // A tree without FUNCTION_NODE_FLAGS set `--enable-source-maps` inline (infra/constructs/service-function.ts).
  const nodeFlags = Array.isArray(construct.FUNCTION_NODE_FLAGS) ? (construct.FUNCTION_NODE_FLAGS as string[]) : ['--enable-source-maps'];
  return {
    name,
    root,
    bundle,
    bytes: statSync(bundle).size,
    gzipBytes: gzipSync(readFileSync(bundle)).length,
    nodeFlags: [...nodeFlags],
    samples: [],
  };
}

const kms = installFakeKms();
const ddb = await startDynamoDbLocal({ dataDir: null });
const table = `bundle-ab-${process.pid}`;
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
    await bundleOf(`base ${git('rev-parse', '--short', base)}`, exportTree(base)),
    await bundleOf(
      head === 'worktree' ? `head (working tree${git('status', '--porcelain') ? ', dirty' : ''})` : `head ${head}`,
      head === 'worktree' ? ROOT : exportTree(head),
    ),
  ];
  const { config } = stack.runtime;
  const eventFile = join(temp, 'token.event.json');
  writeFileSync(
    eventFile,
    JSON.stringify(
      proxyEvent({
        method: 'POST',
        resource: '/token',
        headers: { Authorization: basicAuth(CLIENT_ID, CLIENT_SECRET), 'Content-Type': FORM },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          audience: config.managementAudience,
          scope: 'read:clients',
        }).toString(),
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
      const { stdout } = await runNode([...t.nodeFlags, probe, t.bundle, eventFile], { env, timeoutMs: 30_000 });
      const line = stdout
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('BENCH_RESULT '));
      if (!line) throw new Error(`${t.name}: no result line: ${stdout.slice(-300)}`);
      const r = JSON.parse(line.slice(13)) as Tree['samples'][number] & { status: number };
      if (r.status !== 200) throw new Error(`${t.name}: the token request answered ${r.status}`);
      t.samples.push(r);
    }
  }
  const r1 = (x: number) => Math.round(x * 10) / 10;
  const spread = (xs: number[]) => `${r1(median(xs))} (${r1(Math.min(...xs))}–${r1(Math.max(...xs))})`;
  console.log(
    `Token bundle A/B: ${runs} cold starts per tree, alternating; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; KMS stand-in calls ${JSON.stringify(standIn.calls())}`,
  );
  console.log('| tree | bundle | gzip | node flags | ready ms | boot ms | import ms | first token ms | import CPU ms | CPU to ready ms |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const t of trees) {
    const col = (k: keyof Tree['samples'][number]) => spread(t.samples.map((s) => s[k]));
    console.log(
      `| ${t.name} | ${(t.bytes / 1024).toFixed(1)} KB | ${(t.gzipBytes / 1024).toFixed(1)} KB | \`${t.nodeFlags.join(' ') || '(none)'}\` | ${col('readyMs')} | ${col('bootMs')} | ${col('importMs')} | ${col('handleMs')} | ${col('importCpuMs')} | ${col('readyCpuMs')} |`,
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
