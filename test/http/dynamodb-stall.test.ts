import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClientSecret } from '#shared/crypto/client-secret.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.ts';
import { basicAuth } from '../support/service/local-service.ts';
import { managementCaller, type Reply } from '../support/service/management-api.ts';

/**
 * A hung or dead DynamoDB (docs/operations.md "Failure modes") is a fast 503 with Retry-After, health says `degraded`,
 * nothing is half-written, and the service recovers by itself. Real parts: this file's OWN
 * DynamoDB Local (pausing the run's shared one would stall every other test file), paused with
 * SIGSTOP (a hung connection or stalled partition: connections are accepted, nothing answers)
 * and killed with SIGKILL, and the whole local service over HTTP with the service's DEFAULT
 * budgets (not the tests' generous ones). The answer-time bounds are the service's, with margin for
 * a loaded machine: management API < 5 s, /token for a cold record < 2 s, health < 2 s (its own
 * budget is about one second).
 */
let dataDir: string;
let ddb: DynamoDbLocal;
let stack: LocalStack;
/** Two more containers on the same table: one whose key cache goes stale before the stall, one that never served a request. */
let staleKeys: LocalStack;
let coldContainer: LocalStack;
let url: string;
const clientId = uuidv7();
const clientSecret = generateClientSecret();
let admin: string;
let call: ReturnType<typeof managementCaller>;
/** A client that exists but that /token has never read: its record is cold in the service. */
let cold: { id: string; secret: string };

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t };
}

async function post(path: string, auth: string, fields: Record<string, string>): Promise<Reply> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
    body: form(fields),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const token = (id = clientId, secret = clientSecret) =>
  post('/token', basicAuth(id, secret), { grant_type: 'client_credentials', audience: stack.runtime.config.managementAudience });

/**
 * A valid token for another container's health (its issuer carries its port), signed with the
 * shared keys through the first container, so that the other one has read nothing before.
 */
async function tokenFor(target: LocalStack): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return stack.runtime.keys.signJwt(
    'ES256',
    { typ: 'at+jwt' },
    {
      iss: target.runtime.config.issuer,
      sub: clientId,
      aud: 'health',
      client_id: clientId,
      iat: now,
      nbf: now,
      exp: now + 600,
      jti: uuidv7(),
    },
  );
}

async function health(target?: LocalStack): Promise<Reply> {
  const bearer = target ? await tokenFor(target) : admin;
  const res = await fetch(`${target?.url ?? url}/company/v1/health`, { headers: { authorization: `Bearer ${bearer}` } });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** 503 `service_unavailable` with Retry-After, in the error shape, and never a token or an active answer. */
function expectUnavailable(r: Reply, oauth = false) {
  expect(r.status).toBe(503);
  expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(r.body).toMatchObject({ code: 'service_unavailable', ...(oauth ? { error: 'service_unavailable' } : {}) });
  expect(r.body).not.toHaveProperty('access_token');
  expect(r.body).not.toHaveProperty('active');
}

/**
 * Waits for the service to answer health `ok` and a list again, without restarting anything (a
 * DynamoDB Local that was just restarted runs a cold JVM: its first queries can still exceed a
 * request's budget, and those answer 503 with Retry-After, as they should).
 */
async function recovered(): Promise<void> {
  const end = Date.now() + 30_000;
  for (;;) {
    const h = await health();
    if (h.status === 200 && h.body.server_status === 'ok' && (await call('GET', '/clients?total_count=true')).status === 200) return;
    if (Date.now() > end) throw new Error(`no recovery: ${JSON.stringify(h.body)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every client of the default tenant, and the tenant's counter, after the fault. */
async function clientsAndCount(): Promise<{ names: string[]; total: number }> {
  const r = await call('GET', '/clients?total_count=true&limit=100&fields=id,client_name');
  expect(r.status).toBe(200);
  return { names: r.body.items.map((c: { client_name: string }) => c.client_name), total: r.body.total_count };
}

/** The create that raced the fault either exists whole, once, or not at all; the counter agrees with the items. */
async function expectWholeOrAbsent(name: string): Promise<void> {
  const { names, total } = await clientsAndCount();
  expect(total).toBe(names.length);
  const found = names.filter((n) => n === name);
  expect(found.length).toBeLessThanOrEqual(1);
  if (found.length === 1) {
    const list = await call('GET', `/clients?q=${encodeURIComponent(`(client_name="${name}")`)}&fields=id`);
    const got = await call('GET', `/clients/${list.body.items[0].id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ client_name: name, client_type: 'non_interactive' });
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'fault-ddb-'));
  // On disk, so that a killed DynamoDB Local restarted on the same port still has the data.
  ddb = await startDynamoDbLocal({ dataDir: join(dataDir, 'dynamodb') });
  stack = await startLocalStack({
    port: 0,
    // One service folder for the three containers: they share the master key, as Lambda containers share KMS.
    dataDir: join(dataDir, 'service'),
    dynamodbEndpoint: ddb.endpoint,
    tableName: 'faults',
    stageThrottle: { rateLimit: 10_000, burstLimit: 10_000 },
    defaultClientId: clientId,
    defaultClientSecret: clientSecret,
    // The service's default budgets; records and keys stay warm long enough to tell warm from cold.
    env: { RECORD_CACHE_TTL_SECONDS: '60', KEY_CACHE_TTL_SECONDS: '60' },
  });
  url = stack.url;
  const t = await token();
  expect(t.status).toBe(200);
  admin = t.body.access_token;
  call = managementCaller(url, admin);
  const sameTable = (env: Record<string, string>) =>
    startLocalStack({
      port: 0,
      dataDir: join(dataDir, 'service'),
      dynamodbEndpoint: ddb.endpoint,
      tableName: 'faults',
      stageThrottle: { rateLimit: 10_000, burstLimit: 10_000 },
      defaultClientId: clientId,
      defaultClientSecret: clientSecret,
      env,
    });
  staleKeys = await sameTable({ KEY_CACHE_TTL_SECONDS: '1' });
  coldContainer = await sameTable({});
  const created = await call('POST', '/clients', { body: { client_name: 'cold client', client_type: 'non_interactive' } });
  expect(created.status).toBe(201);
  cold = { id: created.body.id, secret: created.body.client_secret };
  expect((await health()).body.server_status).toBe('ok');
}, 120_000);

afterAll(async () => {
  await staleKeys?.stop();
  await coldContainer?.stop();
  await stack?.stop();
  await ddb?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('DynamoDB paused (SIGSTOP): fail fast and closed, recover by itself', () => {
  it('answers 503 + Retry-After within the bounds, health degraded, nothing half-written, then recovers', async () => {
    const introspected = (await token()).body.access_token as string;
    const warm = await token(); // the Default Client's record and the keys are now warm
    expect(warm.status).toBe(200);
    const name = `created during the stall ${uuidv7()}`;
    const times: Record<string, number> = {};
    expect((await health(staleKeys)).body.server_status).toBe('ok');
    await new Promise((r) => setTimeout(r, 1200)); // its key cache (1 s) is now stale
    process.kill(ddb.pid, 'SIGSTOP');
    try {
      const list = await timed(() => call('GET', '/clients'));
      expectUnavailable(list.value);
      times['GET /identity/v1/clients'] = list.ms;
      expect(list.ms).toBeLessThan(5000);

      const create = await timed(() => call('POST', '/clients', { body: { client_name: name, client_type: 'non_interactive' } }));
      expectUnavailable(create.value);
      times['POST /identity/v1/clients'] = create.ms;
      expect(create.ms).toBeLessThan(5000);

      const coldToken = await timed(() => token(cold.id, cold.secret));
      expectUnavailable(coldToken.value, true);
      expect(coldToken.value.headers.get('cache-control')).toBe('no-store');
      times['POST /token (cold record)'] = coldToken.ms;
      expect(coldToken.ms).toBeLessThan(2000);

      // Warm: the client record and the signing keys are cached, and issuing writes nothing.
      const warmToken = await timed(() => token());
      expect(warmToken.value.status).toBe(200);
      expect(warmToken.value.body.access_token).toEqual(expect.any(String));
      times['POST /token (warm)'] = warmToken.ms;

      // The token's revocation entry must be read: never active:true without that check.
      const introspect = await timed(() => post('/introspect', basicAuth(clientId, clientSecret), { token: introspected }));
      expectUnavailable(introspect.value, true);
      times['POST /introspect'] = introspect.ms;
      expect(introspect.ms).toBeLessThan(5000);

      // Revocation is never silently skipped: the caller learns it did not happen.
      const revoke = await timed(() => post('/revoke', basicAuth(clientId, clientSecret), { token: introspected }));
      expectUnavailable(revoke.value, true);
      times['POST /revoke'] = revoke.ms;

      const h = await timed(health);
      expect(h.value.status).toBe(200);
      expect(h.value.body).toMatchObject({ server_status: 'degraded', failed_dependencies: 'dynamodb' });
      expect(JSON.stringify(h.value.body)).not.toMatch(/timeout|ECONN|127\.0\.0\.1|Error/i);
      times['GET /company/v1/health'] = h.ms;
      expect(h.ms).toBeLessThan(2000);

      // Keys due for a re-read: health checks the token against the last keys read instead.
      const stale = await timed(() => health(staleKeys));
      expect(stale.value.status).toBe(200);
      expect(stale.value.body).toMatchObject({ server_status: 'degraded', failed_dependencies: 'dynamodb' });
      times['GET /company/v1/health (stale key cache)'] = stale.ms;
      expect(stale.ms).toBeLessThan(2000);

      // A container that never read the keys cannot check the token at all: 503, quickly, never a 401.
      const never = await timed(() => health(coldContainer));
      expectUnavailable(never.value);
      times['GET /company/v1/health (cold container)'] = never.ms;
      expect(never.ms).toBeLessThan(2000);
    } finally {
      process.kill(ddb.pid, 'SIGCONT');
    }
    console.log(
      `answer times while DynamoDB Local was paused (ms): ${JSON.stringify(Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(v)])))}`,
    );

    await recovered();
    await expectWholeOrAbsent(name);
    // Recovery without a restart. The cold client's record is read now (it holds no grant for
    // the management API, so the answer is a refusal, not a 503).
    const coldAfter = await token(cold.id, cold.secret);
    expect(coldAfter.status).toBe(400);
    expect(coldAfter.body).toMatchObject({ error: 'invalid_target' });
    // The 503 on /revoke told the caller the outcome is unknown (the request may have reached the
    // table before it stalled); retried now, it succeeds and the token is inactive from then on.
    expect((await post('/revoke', basicAuth(clientId, clientSecret), { token: introspected })).status).toBe(200);
    const after = await post('/introspect', basicAuth(clientId, clientSecret), { token: introspected });
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ active: false });
    expect((await call('GET', '/clients')).status).toBe(200);
  }, 90_000);
});

describe('DynamoDB killed (SIGKILL): 503 at once, health degraded, recovery when it is back', () => {
  it('refused connections are 503s, and the service recovers once DynamoDB Local is back on its port', async () => {
    const name = `created while DynamoDB was down ${uuidv7()}`;
    const port = Number(new URL(ddb.endpoint).port);
    process.kill(ddb.pid, 'SIGKILL');
    await ddb.exited;
    try {
      const list = await timed(() => call('GET', '/clients'));
      expectUnavailable(list.value);
      expect(list.ms).toBeLessThan(5000);
      const create = await call('POST', '/clients', { body: { client_name: name, client_type: 'non_interactive' } });
      expectUnavailable(create);
      const coldToken = await timed(() => token(uuidv7(), 'x'.repeat(43)));
      expectUnavailable(coldToken.value, true);
      expect(coldToken.ms).toBeLessThan(2000);
      const h = await timed(health);
      expect(h.value.body).toMatchObject({ server_status: 'degraded', failed_dependencies: 'dynamodb' });
      expect(h.ms).toBeLessThan(2000);
    } finally {
      ddb = await startDynamoDbLocal({ dataDir: join(dataDir, 'dynamodb'), port });
    }
    await recovered();
    await expectWholeOrAbsent(name);
    expect((await call('GET', '/clients')).status).toBe(200);
    expect((await token()).status).toBe(200);
  }, 120_000);
});
