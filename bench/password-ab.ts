/**
 * `npm run bench:password-ab -- --base=<commit> [--head=<commit>|worktree] [--samples=60] [--warmup=1000] [--db-core=1]`: a
 * change's effect on the password grant's latency as a multiple of one argon2id hash, as section
 * 9 of `npm run bench` measures it (bench/sections/user-flows.ts `passwordLatency`), for two trees
 * side by side in one run. Each tree's bench/servers/ours.ts runs in its own process with its own
 * DynamoDB Local, both pinned to the server core, as is the hash worker; this process to the other.
 * A sample is one hash, then one grant on each tree in alternating order, one request at a time, so
 * a busy patch of the shared machine lands on both trees alike. Prints each tree's medians and
 * ratio (median grant ÷ median hash), and head ÷ base of the grant medians.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { settleCore } from './lib/cpu.ts';
import { LOAD_CORE, pinProcess, pinSelf, SERVER_CORE, spawnNode, stopChild, waitForReady } from './lib/proc.ts';
import { median } from './lib/stats.ts';
import { treeExports } from './lib/tree-export.ts';
import { hashWorker, PASSWORD_WARMUP_GRANTS, passwordGrant, prepareUserFixture, type UserFixture } from './sections/user-flows.ts';

const ROOT = resolve(import.meta.dirname, '..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const base = arg('base');
if (!base) throw new Error('--base=<commit> is required');
const head = arg('head') ?? 'worktree';
const samples = Number(arg('samples') ?? 60);
const warmup = Number(arg('warmup') ?? PASSWORD_WARMUP_GRANTS);
/** `--db-core=1`: both DynamoDB Locals moved off the server core (a database on its own CPU, as DynamoDB is). */
const dbCore = arg('db-core');

const admin = { clientId: '0190a0a0-bbbb-7000-8000-00000000ab1e', clientSecret: 'bench-password-ab-default-client-secret-0123456789ab' };
const { git, exportTree, remove } = treeExports(ROOT, 'bench-password-ab-');
pinSelf(LOAD_CORE);

const trees = [
  { name: `base ${git('rev-parse', '--short', base)}`, root: exportTree(base) },
  {
    name: head === 'worktree' ? `head (working tree${git('status', '--porcelain') ? ', dirty' : ''})` : `head ${head}`,
    root: head === 'worktree' ? ROOT : exportTree(head),
  },
];
const children: ReturnType<typeof spawnNode>[] = [];
const worker = await hashWorker();
if (!worker) throw new Error('this tree has no password hashing');
try {
  const fixtures: UserFixture[] = [];
  for (const [i, t] of trees.entries()) {
    const child = spawnNode(
      ['--import', 'tsx', join(t.root, 'bench/servers/ours.ts'), JSON.stringify({ ...admin, tableName: `password-ab-${i}` })],
      { core: SERVER_CORE, quietStderr: true, server: true, cwd: t.root },
    );
    children.push(child);
    const ready = await waitForReady<{ url: string; managementAudience: string }>(child, t.name);
    if (dbCore !== undefined) {
      const java = execFileSync('pgrep', ['-P', String(child.pid), 'java'], { encoding: 'utf8' }).trim();
      if (!java || !pinProcess(Number(java), dbCore)) throw new Error(`could not move ${t.name}'s DynamoDB Local to core ${dbCore}`);
    }
    const side = {
      name: t.name,
      url: ready.url,
      procs: { pid: child.pid },
      admin: { ...admin, managementAudience: ready.managementAudience },
    };
    fixtures.push(await prepareUserFixture(side, `ab${i}`));
  }
  const r2 = (x: number) => Math.round(x * 100) / 100;
  const load0 = loadavg().map(r2).join(' ');
  // Warm-up (not counted): the JIT of both servers and both DynamoDB Locals, as section 9 warms
  // its own (docs/benchmarks.md "Password grant: the database's JIT").
  for (let i = 0; i < warmup; i++) for (const f of fixtures) await passwordGrant(f, 'openid');
  await settleCore(SERVER_CORE);
  const hashes: number[] = [];
  const grants: number[][] = [[], []];
  for (let s = 0; s < samples; s++) {
    hashes.push(await worker.hash(fixtures[0]!.password));
    for (const i of s % 2 ? [1, 0] : [0, 1]) {
      const t = performance.now();
      await passwordGrant(fixtures[i]!, 'openid');
      grants[i]!.push(performance.now() - t);
    }
  }
  const hash = median(hashes);
  console.log(
    `Password grant A/B: ${trees[0]!.name} vs ${trees[1]!.name}; ${samples} samples; DynamoDB Local on core ${dbCore ?? SERVER_CORE}; load average ${load0} → ${loadavg().map(r2).join(' ')}`,
  );
  console.log('| tree | grant median ms | hash median ms | grant ÷ hash |');
  console.log('|---|---|---|---|');
  for (const [i, t] of trees.entries())
    console.log(`| ${t.name} | ${r2(median(grants[i]!))} | ${r2(hash)} | ${r2(median(grants[i]!) / hash)} |`);
  console.log(`head ÷ base (grant medians): ${r2(median(grants[1]!) / median(grants[0]!))}`);
} finally {
  worker.stop();
  for (const c of children) await stopChild(c);
  remove();
}
