/**
 * The open-loop stall, shown (docs/benchmarks.md "The open-loop stall"): our local server as the
 * bench runs it, on the server core, with bench/probes/stall-watch.mjs preloaded, under open-loop
 * client_credentials load at a fixed rate. Prints per run the latencies, the windows of slow
 * answers (by scheduled time since the run began), the server's event-loop and GC stalls, and its
 * DynamoDB calls per second.
 *
 *   node --import tsx bench/probes/open-loop-stall.ts [rate=1939] [runs=4]
 *
 * `SERVER_ENV='{"RECORD_CACHE_TTL_SECONDS":"300"}'` passes service settings to the server.
 */
import { basicAuth, FORM } from '../lib/api-event.ts';
import { prepareOurClient } from '../lib/fixture.ts';
import { type LoadTarget, runLoad } from '../lib/load.ts';
import { runOpenLoop } from '../lib/open-loop.ts';
import { LOAD_CORE, pinSelf, SERVER_CORE, spawnNode, waitForReady } from '../lib/proc.ts';

pinSelf(LOAD_CORE);
const rate = Number(process.argv[2] ?? 1939);
const runs = Number(process.argv[3] ?? 4);
const child = spawnNode(
  [
    '--import',
    new URL('./stall-watch.mjs', import.meta.url).pathname,
    '--import',
    'tsx',
    new URL('../servers/ours.ts', import.meta.url).pathname,
    JSON.stringify({
      clientId: '0190a0a0-bbbb-7000-8000-00000000be0c',
      clientSecret: 'bench-stall-probe-secret-0123456789abcdefghijklmnopq',
      tableName: 'stall-probe',
      env: JSON.parse(process.env.SERVER_ENV ?? '{}'),
    }),
  ],
  { core: SERVER_CORE, quietStderr: true, server: true },
);
interface Ready {
  url: string;
  clientId: string;
  clientSecret: string;
  managementAudience: string;
}
const ready = await waitForReady<Ready>(child, 'our local server');
// After the ready line, waitForReady forwards the server's stderr tagged; collect it as well.
const lines: string[] = [];
child.stderr!.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
const fx = await prepareOurClient(ready.url, ready);
const target: LoadTarget = {
  url: `${ready.url}/token`,
  method: 'POST',
  headers: { authorization: basicAuth(fx.clientId, fx.clientSecret), 'content-type': FORM },
  body: new URLSearchParams({ grant_type: 'client_credentials', resource: fx.resource, scope: fx.scope }).toString(),
};
await runLoad(target, { connections: 16, durationS: 3 });
await runOpenLoop(target, rate, 1); // the load generator's own first requests
for (let i = 0; i < runs; i++) {
  lines.length = 0;
  const slow: [number, number][] = [];
  const t0 = Date.now();
  const r = await runOpenLoop(target, rate, 5, 512, (due, ms) => {
    if (ms > 30) slow.push([Math.round(due - t0), Math.round(ms)]);
  });
  const windows: { from: number; to: number; n: number; worstMs: number }[] = [];
  for (const [at, ms] of slow.sort((a, b) => a[0] - b[0])) {
    const w = windows.at(-1);
    if (w && at - w.to < 50) Object.assign(w, { to: at, n: w.n + 1, worstMs: Math.max(w.worstMs, ms) });
    else windows.push({ from: at, to: at, n: 1, worstMs: ms });
  }
  const ddb = lines.filter((l) => l.includes('DDB ')).map((l) => l.replace(/.*DDB (\{.*\}) at.*/, '$1'));
  const stalls = lines
    .filter((l) => l.includes('STALL '))
    .map((l) => l.replace(/.*STALL /, '').replace(/(\d{13})/, (m) => `+${Number(m) - t0} ms`));
  console.log(
    `run ${i + 1}: ${rate}/s for 5 s: p50 ${r.p50Ms} p99 ${r.p99Ms} p99.9 ${r.p999Ms} max ${r.maxMs} ms, most in flight ${r.maxInFlight}, send lag p99 ${r.sendLagP99Ms} ms`,
  );
  console.log(`  answers over 30 ms, by window: ${JSON.stringify(windows)}`);
  console.log(`  server stalls: ${stalls.join('; ') || 'none'}`);
  console.log(`  DynamoDB calls per second: ${ddb.join(' ')}`);
}
child.kill('SIGTERM');
