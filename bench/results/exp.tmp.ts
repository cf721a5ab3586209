import { join } from 'node:path';
import { spawnNode, waitForReady, stopChild, pinSelf } from '../lib/proc.ts';
import { runLoad } from '../lib/load.ts';
import { prepareOurClient } from '../lib/fixture.ts';
import { basicAuth, FORM } from '../lib/api-event.ts';
pinSelf(1);
const child = spawnNode(['--import', 'tsx', join(import.meta.dirname, '../servers/ours.ts'), JSON.stringify({ clientId: '0190a0a0-bbbb-7000-8000-00000000be0c', clientSecret: 'bench-default-client-secret-0123456789abcdefghijklmno', tableName: 'bench-http' })], { core: 0, quietStderr: true, server: true });
const r = await waitForReady<any>(child, 'ours');
const f = await prepareOurClient(r.url, r);
const target = { url: `${r.url}/token`, method: 'POST' as const, headers: { authorization: basicAuth(f.clientId, f.clientSecret), 'content-type': FORM }, body: new URLSearchParams({ grant_type: 'client_credentials', resource: f.resource, scope: f.scope }).toString() };
await runLoad(target, { connections: 16, durationS: 2 });
import { readdirSync, readFileSync } from 'node:fs';
const sched = (pid: number) => { let run = 0, wait = 0; for (const t of readdirSync(`/proc/${pid}/task`)) { const [a, b] = readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ').map(Number); run += a!; wait += b!; } return { run: run / 1e9, wait: wait / 1e9 }; };
for (const c of [16, 4, 16, 4, 32]) {
  const s0 = sched(child.pid!);
  const x = await runLoad(target, { connections: c, durationS: 4, serverPid: child.pid });
  const s1 = sched(child.pid!);
  console.log(c, x.rps, 'p50', x.p50Ms, 'p99', x.p99Ms, 'cpu', x.serverCpuShare, 'run', (s1.run - s0.run).toFixed(2), 'runqueue-wait', (s1.wait - s0.wait).toFixed(2), 'load', (await import('node:os')).loadavg()[0]);
}
await stopChild(child);
