/**
 * `npm run bench:ab -- --base=<commit> [--head=<commit>|worktree] [--paths=token,introspect,refresh] [--runs=3] [--slices=10] [--slice-ms=300] [--pool=12000]`:
 * a change's effect on the hot paths, measured in one run (docs/benchmarks.md "Before and after
 * one change"). The base commit (and the head, unless it is the working tree) is exported with
 * `git archive` to a temporary directory that uses this tree's node_modules. Each run is a fresh
 * process (bench/probes/hot-path.ts) holding both trees' stacks, which alternates short slices of
 * load between them, so a busy moment of the shared machine lands on both; which tree goes first
 * alternates between runs. Figures are CPU microseconds per request of the probe process (the
 * handler's own CPU; the bench's event construction taken out), and DynamoDB Local's CPU per
 * request beside them. Prints each run and the median ratio head/base with its range.
 */
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { startDynamoDbLocal } from '../infra/local/dynamodb-local.ts';
import { treeExports } from './lib/tree-export.ts';

const ROOT = resolve(import.meta.dirname, '..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const base = arg('base');
if (!base) throw new Error('--base=<commit> is required');
const head = arg('head') ?? 'worktree';
const runs = Number(arg('runs') ?? 3);
const slices = Number(arg('slices') ?? 10);
const sliceMs = Number(arg('slice-ms') ?? 300);
const pool = Number(arg('pool') ?? 12_000);
/** `--paths=token,introspect,refresh`: which hot paths to measure (default token and introspect). */
const paths = (arg('paths') ?? 'token,introspect').split(',');

const { git, temp, exportTree, remove } = treeExports(ROOT, 'bench-ab-');

interface TreeResult {
  tokenUs: number;
  introspectUs: number;
  introspectDdbLocalUs: number;
  introspectDdbCallsPerRequest: number;
  introspectDdbByCommand: Record<string, number>;
  refreshUs: number;
  refreshDdbLocalUs: number;
  refreshDdbCallsPerRequest: number;
  refreshDdbByCommand: Record<string, number>;
}
interface ProbeResult {
  es256SignUs: number;
  es256VerifyUs: number;
  trees: TreeResult[];
}
const METRICS = (
  [
    'tokenUs',
    'introspectUs',
    'introspectDdbLocalUs',
    'introspectDdbCallsPerRequest',
    'refreshUs',
    'refreshDdbLocalUs',
    'refreshDdbCallsPerRequest',
  ] as const
).filter((m) => paths.some((p) => m.startsWith(p)));

const ddb = await startDynamoDbLocal({ dataDir: null });
const devNull = openSync('/dev/null', 'w');
try {
  const trees = [
    { name: `base ${git('rev-parse', '--short', base)}`, root: exportTree(base) },
    {
      name: head === 'worktree' ? `head (working tree${git('status', '--porcelain') ? ', dirty' : ''})` : `head ${head}`,
      root: head === 'worktree' ? ROOT : exportTree(head),
    },
  ];
  const probe = (n: number): Promise<ProbeResult> =>
    new Promise((res, rej) => {
      const out = join(temp, `result-${n}.json`);
      // Alternate which tree sets up (and so is measured) first.
      const roots = n % 2 === 0 ? [trees[0]!.root, trees[1]!.root] : [trees[1]!.root, trees[0]!.root];
      const options = {
        roots,
        out,
        dynamodbEndpoint: ddb.endpoint,
        dynamodbPid: ddb.pid,
        slices,
        sliceMs,
        pool,
        paths,
        clientId: '0190a0a0-bbbb-7000-8000-00000000ab0c',
        clientSecret: 'bench-ab-default-client-secret-0123456789abcdefghijkl',
      };
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/probes/hot-path.ts'), JSON.stringify(options)], {
        cwd: ROOT,
        stdio: ['ignore', devNull, 'pipe'],
        env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_SERVICE_NAME: 'identity-service' },
      });
      let err = '';
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
      });
      child.on('exit', (code) => {
        if (code !== 0) return rej(new Error(`probe exited ${code}: ${err.slice(-2000)}`));
        const r = JSON.parse(readFileSync(out, 'utf8')) as ProbeResult;
        if (n % 2 === 1) r.trees.reverse();
        res(r);
      });
    });

  const runsOut: ProbeResult[] = [];
  for (let n = 0; n < runs; n++) {
    const r = await probe(n);
    runsOut.push(r);
    for (const [i, t] of r.trees.entries())
      process.stderr.write(`run ${n + 1} ${trees[i]!.name}: ${METRICS.map((m) => `${m} ${t[m]}`).join(', ')}\n`);
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const r2 = (x: number) => Math.round(x * 100) / 100;
  console.log(
    `A/B: ${trees[0]!.name} vs ${trees[1]!.name}; paths ${paths.join(', ')}; ${runs} runs × ${slices} alternating slices of ${sliceMs} ms per path; introspection pool ${pool}; load average ${loadavg().map(r2).join(' ')}`,
  );
  console.log('| CPU per request | base median | head median | head/base: median of runs (min–max) |');
  console.log('|---|---|---|---|');
  for (const m of METRICS) {
    const b = runsOut.map((x) => x.trees[0]![m]);
    const h = runsOut.map((x) => x.trees[1]![m]);
    const ratios = b.map((bv, i) => h[i]! / bv).filter((x) => Number.isFinite(x));
    const range = ratios.length ? `${r2(median(ratios))} (${r2(Math.min(...ratios))}–${r2(Math.max(...ratios))})` : 'n/a';
    console.log(`| ${m} | ${r2(median(b))} | ${r2(median(h))} | ${range} |`);
  }
  console.log(
    `raw ES256 in the probe: sign ${median(runsOut.map((r) => r.es256SignUs))} µs, verify ${median(runsOut.map((r) => r.es256VerifyUs))} µs`,
  );
  for (const p of ['introspect', 'refresh'] as const)
    if (paths.includes(p))
      console.log(
        `DynamoDB calls per ${p}, by command, last run: base ${JSON.stringify(runsOut.at(-1)!.trees[0]![`${p}DdbByCommand`])}, head ${JSON.stringify(runsOut.at(-1)!.trees[1]![`${p}DdbByCommand`])}`,
      );
} finally {
  await ddb.stop();
  remove();
}
