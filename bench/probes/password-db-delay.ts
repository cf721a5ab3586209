/**
 * `node --import tsx bench/probes/password-db-delay.ts --base=<commit> [--delay-ms=2] [--samples=60]`:
 * the password grant of two trees (the commit and this working tree) when the database is a
 * network hop away, as DynamoDB is from Lambda. `npm run bench` and `bench:password-ab` keep
 * DynamoDB Local on the server's core, where a database call is CPU on our core; here one DynamoDB
 * Local runs on the other core behind a TCP proxy that holds every chunk `delay-ms` in each
 * direction. Both trees' local stacks run in this process, pinned to the server core, against that
 * one database (a table each); one hash, then one grant of each tree in alternating order, per
 * sample. Prints each tree's median grant, its ratio to the median hash, and head ÷ base.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import net from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';
import { canPin, LOAD_CORE, pinProcess, pinSelf, SERVER_CORE } from '../lib/proc.ts';
import { median } from '../lib/stats.ts';
import { treeExports } from '../lib/tree-export.ts';
import { PASSWORD, PASSWORD_WARMUP_GRANTS, passwordGrant, prepareUserFixture } from '../sections/user-flows.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const base = arg('base');
if (!base) throw new Error('--base=<commit> is required');
const delayMs = Number(arg('delay-ms') ?? 2);
const samples = Number(arg('samples') ?? 60);

const { git, exportTree, remove } = treeExports(ROOT, 'bench-password-delay-');
const trees = [
  { name: `base ${git('rev-parse', '--short', base)}`, root: exportTree(base) },
  { name: `head (working tree${git('status', '--porcelain') ? ', dirty' : ''})`, root: ROOT },
];
pinSelf(SERVER_CORE);
const ddb = await startDynamoDbLocal({ dataDir: null });
// The database on a core of its own (it started on ours); on a machine that cannot pin, it shares the cores.
if (canPin()) pinProcess(ddb.pid, LOAD_CORE);

/** The network hop: every chunk held `delayMs` each way (TCP_NODELAY on both legs). */
const target = new URL(ddb.endpoint);
const proxy = net.createServer((client) => {
  const upstream = net.connect(Number(target.port), target.hostname);
  for (const s of [client, upstream]) {
    s.setNoDelay(true);
    s.on('error', () => {});
  }
  client.on('data', (d) => setTimeout(() => upstream.write(d), delayMs));
  upstream.on('data', (d) => setTimeout(() => client.write(d), delayMs));
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
});
await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
const endpoint = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;

type Stack = { url: string; stop(): Promise<void> };
const sides: { name: string; stack: Stack; grant: () => Promise<unknown> }[] = [];
try {
  for (const [i, t] of trees.entries()) {
    const { startLocalStack } = (await import(pathToFileURL(`${t.root}/infra/local/local-stack.ts`).href)) as {
      startLocalStack(o: Record<string, unknown>): Promise<Stack>;
    };
    const admin = { clientId: randomUUID(), clientSecret: randomBytes(32).toString('base64url') };
    const stack = await startLocalStack({
      port: 0,
      dataDir: null,
      dynamodbEndpoint: endpoint,
      tableName: `password-delay-${i}-${randomUUID()}`,
      stageThrottle: { rateLimit: 100_000, burstLimit: 100_000 },
      routeThrottles: 'stage-only',
      defaultClientId: admin.clientId,
      defaultClientSecret: admin.clientSecret,
      env: {},
    });
    const side = { name: t.name, url: stack.url, procs: {}, admin: { ...admin, managementAudience: `${stack.url}/identity/v1/` } };
    const f = await prepareUserFixture(side, `delay${i}`);
    const grant = () => passwordGrant(f, 'openid');
    sides.push({ name: t.name, stack, grant });
  }
  for (let i = 0; i < PASSWORD_WARMUP_GRANTS; i++) for (const s of sides) await s.grant();
  const hashes: number[] = [];
  const grants: number[][] = sides.map(() => []);
  for (let k = 0; k < samples; k++) {
    let t = performance.now();
    await hashPassword(PASSWORD);
    hashes.push(performance.now() - t);
    for (const i of k % 2 ? [1, 0] : [0, 1]) {
      t = performance.now();
      await sides[i]!.grant();
      grants[i]!.push(performance.now() - t);
    }
  }
  const r2 = (x: number) => Math.round(x * 100) / 100;
  console.log(`Password grant, database ${delayMs} ms away each way; ${samples} samples; hash median ${r2(median(hashes))} ms`);
  for (const [i, s] of sides.entries())
    console.log(`${s.name}: grant median ${r2(median(grants[i]!))} ms, ÷ hash ${r2(median(grants[i]!) / median(hashes))}`);
  console.log(`head ÷ base (grant medians): ${r2(median(grants[1]!) / median(grants[0]!))}`);
} finally {
  for (const s of sides) await s.stack.stop();
  proxy.close();
  await ddb.stop();
  remove();
}
process.exit(0);
