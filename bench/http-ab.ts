/**
 * `npm run bench:http-ab -- --base=<commit> [--head=<commit>|worktree] [--paths=token,uncached,cached] [--rounds=10] [--duration=2] [--connections=16] [--pool=12000]`:
 * a change's effect on the CPU per request over HTTP, as section 1 and 2 of `npm run bench` load
 * our server (docs/benchmarks.md "Before and after one change, over HTTP"). Where `npm run
 * bench:ab` calls the handlers in process, this also covers the local server's adapter
 * (infra/local: body read, routing, proxy event, response write) and Node's HTTP server. Each
 * tree's own bench/servers/ours.ts runs in its own process (with its own DynamoDB Local), both
 * pinned to the server core; this process (autocannon) to the other. In each round both servers
 * are under load at once, half the connections each, so both are measured over the same moment of
 * the shared machine (back-to-back runs of two processes differed by up to 2× on a busy machine).
 * Figures: CPU µs per 2xx of each server process (DynamoDB Local left out: these paths make about
 * one call a second), and the ratio head/base per round with the median and range.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { basicAuth, FORM } from './lib/api-event.ts';
import { prepareOurClient } from './lib/fixture.ts';
import { type LoadTarget, runLoad } from './lib/load.ts';
import { LOAD_CORE, pinSelf, SERVER_CORE, spawnNode, stopChild, waitForReady } from './lib/proc.ts';
import { fetchTokens } from './lib/token-pool.ts';
import { treeExports } from './lib/tree-export.ts';

const ROOT = resolve(import.meta.dirname, '..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const base = arg('base');
if (!base) throw new Error('--base=<commit> is required');
const head = arg('head') ?? 'worktree';
const rounds = Number(arg('rounds') ?? 10);
const durationS = Number(arg('duration') ?? 2);
const connections = Number(arg('connections') ?? 16);
const pool = Number(arg('pool') ?? 12_000);
const paths = (arg('paths') ?? 'token,uncached,cached').split(',') as ('token' | 'uncached' | 'cached')[];

const admin = { clientId: '0190a0a0-bbbb-7000-8000-00000000ab0e', clientSecret: 'bench-http-ab-default-client-secret-0123456789abcdef' };
const { git, exportTree, remove } = treeExports(ROOT, 'bench-http-ab-');
pinSelf(LOAD_CORE);

const trees = [
  { name: `base ${git('rev-parse', '--short', base)}`, root: exportTree(base) },
  {
    name: head === 'worktree' ? `head (working tree${git('status', '--porcelain') ? ', dirty' : ''})` : `head ${head}`,
    root: head === 'worktree' ? ROOT : exportTree(head),
  },
];
const servers: { child: ReturnType<typeof spawnNode>; targets: Record<string, LoadTarget> }[] = [];
try {
  for (const [i, t] of trees.entries()) {
    const child = spawnNode(
      ['--import', 'tsx', join(t.root, 'bench/servers/ours.ts'), JSON.stringify({ ...admin, tableName: `http-ab-${i}` })],
      { core: SERVER_CORE, quietStderr: true, server: true, cwd: t.root },
    );
    const ready = await waitForReady<{ url: string; managementAudience: string }>(child, t.name);
    const f = await prepareOurClient(ready.url, { ...admin, managementAudience: ready.managementAudience });
    const headers = { authorization: basicAuth(f.clientId, f.clientSecret), 'content-type': FORM };
    const params = { resource: f.resource, scope: f.scope };
    const introspect = async (n: number): Promise<LoadTarget> => ({
      url: `${ready.url}/tokeninfo`,
      method: 'POST',
      headers,
      bodies: (await fetchTokens(ready.url, f.clientId, f.clientSecret, params, n)).map((tk) =>
        new URLSearchParams({ token: tk }).toString(),
      ),
    });
    const targets: Record<string, LoadTarget> = {};
    for (const p of paths) {
      if (p === 'token')
        targets.token = {
          url: `${ready.url}/token`,
          method: 'POST',
          headers,
          body: new URLSearchParams({ grant_type: 'client_credentials', ...params }).toString(),
        };
      else targets[p] = await introspect(p === 'uncached' ? pool : 256);
    }
    servers.push({ child, targets });
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const r2 = (x: number) => Math.round(x * 100) / 100;
  const load0 = loadavg().map(r2).join(' ');
  const rows: string[] = [];
  for (const p of paths) {
    // Warm-up (not counted); for `uncached`, one lap of the pool, so every token is evicted when it comes back.
    await Promise.all(
      servers.map((s) =>
        runLoad(s.targets[p]!, { connections: connections / 2, durationS: p === 'uncached' ? 6 : 1, side: { pid: s.child.pid } }),
      ),
    );
    const us: number[][] = [[], []];
    for (let r = 0; r < rounds; r++) {
      // Both under load at the same moment (half the connections each): a busy patch of the
      // machine lands on both alike, which back-to-back runs of separate processes did not get.
      const res = await Promise.all(
        servers.map((s) => runLoad(s.targets[p]!, { connections: Math.max(1, connections / 2), durationS, side: { pid: s.child.pid } })),
      );
      for (const [i, x] of res.entries()) {
        if (x.non2xx || x.errors) throw new Error(`${trees[i]!.name} ${p}: ${x.non2xx} non-2xx, ${x.errors} errors`);
        us[i]!.push(1e6 / x.okPerCpuS);
      }
      process.stderr.write(`${p} round ${r + 1}: base ${r2(us[0]!.at(-1)!)} µs, head ${r2(us[1]!.at(-1)!)} µs\n`);
    }
    const ratios = us[1]!.map((h, k) => h / us[0]![k]!);
    rows.push(
      `| ${p} | ${r2(median(us[0]!))} | ${r2(median(us[1]!))} | ${r2(median(ratios))} (${r2(Math.min(...ratios))}–${r2(Math.max(...ratios))}) |`,
    );
  }
  console.log(
    `HTTP A/B: ${trees[0]!.name} vs ${trees[1]!.name}; ${rounds} rounds of ${durationS} s per path, both servers at once, ${connections / 2} connections each; uncached pool ${pool}; load average ${load0} → ${loadavg().map(r2).join(' ')}`,
  );
  console.log('| server CPU µs per 2xx | base median | head median | head/base: median of rounds (min–max) |');
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  for (const s of servers) await stopChild(s.child);
  remove();
}
