/**
 * `node --import tsx bench/password-grant.ts [--samples=N]`: the password grant's latency as a
 * multiple of one argon2id hash (target ≤ 1.3×), measured on the local
 * service (DynamoDB Local in memory, local key mode) over HTTP, one request at a time.
 *
 * Prints the median and p90 of: one `hashPassword` in this process; a password grant that succeeds
 * (marker read, counting write that returns the user, one hash, the login write with token signing); a wrong password;
 * an unknown login (dummy hash). The ratio is success median ÷ hash median. A standalone script;
 * `npm run bench` section 9 measures the same ratio (bench/sections/user-flows.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { startLocalStack } from '../infra/local/local-stack.ts';
import { putUser } from '../test/support/store/user-items.ts';
import { basicAuth, FORM } from './lib/api-event.ts';

const samples = Number(process.argv.find((a) => a.startsWith('--samples='))?.split('=')[1] ?? 40);
const password = 'bench-Password-7-Lighthouse';

const clientId = randomUUID();
const clientSecret = randomBytes(32).toString('base64url');
const stack = await startLocalStack({
  port: 0,
  dataDir: null,
  tableName: `bench-password-${randomUUID()}`,
  stageThrottle: { rateLimit: 100_000, burstLimit: 100_000 },
  routeThrottles: 'stage-only',
  defaultClientId: clientId,
  defaultClientSecret: clientSecret,
  env: {},
});

try {
  const admin = await token(clientId, clientSecret, {
    grant_type: 'client_credentials',
    audience: `${stack.url}/identity/v1/`,
    scope: 'create:clients',
  });
  const created = await fetch(`${stack.url}/identity/v1/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${String(admin.access_token)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bench password', client_metadata: { grant_types: ['password'] } }),
  });
  if (created.status !== 201) throw new Error(`POST /clients: ${created.status} ${await created.text()}`);
  const app = (await created.json()) as { id: string; client_secret: string };

  // A user as the users store writes it (the record and its login markers).
  const username = `bench_${randomUUID().slice(0, 8)}`;
  await putUser(stack.runtime, { username, password_hash: await hashPassword(password) });

  const grant = (user: string, secret: string) =>
    token(app.id, app.client_secret, { grant_type: 'password', username: user, password: secret });
  // Warm up: caches, keys, JIT (successes reset the lockout, so the user never locks).
  for (let i = 0; i < 5; i++) expectStatus(await grant(username, password), 200);

  // Interleaved, one of each per round, so a change of load on the machine shifts all four alike.
  const hash: number[] = [];
  const success: number[] = [];
  const wrong: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < samples; i++) {
    hash.push(await timed(() => hashPassword(password)));
    success.push(await timed(async () => expectStatus(await grant(username, password), 200)));
    wrong.push(await timed(async () => expectStatus(await grant(username, 'not-the-password-1'), 400)));
    unknown.push(await timed(async () => expectStatus(await grant('nobody-by-that-name', password), 400)));
    // The next success resets the count, so the lockout never answers instead.
  }
  const row = (name: string, ms: number[]) =>
    `${name.padEnd(34)} median ${median(ms).toFixed(1).padStart(6)} ms   p90 ${p90(ms).toFixed(1).padStart(6)} ms`;
  console.log(`password grant vs one argon2id hash (m=19456 KiB, t=2, p=1), ${samples} samples each, one at a time`);
  console.log(row('argon2id hash (in process)', hash));
  console.log(row('password grant, success (HTTP)', success));
  console.log(row('password grant, wrong password', wrong));
  console.log(row('password grant, unknown login', unknown));
  console.log(`ratio success ÷ hash (medians): ${(median(success) / median(hash)).toFixed(2)}× (target ≤ 1.3×)`);
} finally {
  await stack.stop();
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function token(id: string, secret: string, params: Record<string, string>): Promise<{ status: number } & Record<string, unknown>> {
  const res = await fetch(`${stack.url}/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(id, secret), 'content-type': FORM },
    body: new URLSearchParams(params),
  });
  return { status: res.status, ...((await res.json()) as Record<string, string>) };
}

function expectStatus(res: { status: number }, status: number) {
  if (res.status !== status) throw new Error(`expected ${status}, got ${JSON.stringify(res)}`);
}

function quantile(xs: number[], q: number): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)] ?? Number.NaN;
}
function median(xs: number[]): number {
  return quantile(xs, 0.5);
}
function p90(xs: number[]): number {
  return quantile(xs, 0.9);
}
