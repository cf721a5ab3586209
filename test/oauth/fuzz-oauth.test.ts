import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import fc from 'fast-check';
import { SignJWT } from 'jose';
import type * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import type { HttpResponse } from '#shared/http/response.ts';
import { DeviceCodeRequestSchema } from '#shared/oauth/device/device-authorization.ts';
import { TokenRequestSchema } from '#shared/oauth/grants/token-grant.ts';
import { IntrospectionBodySchema, IntrospectionQuerySchema } from '#shared/oauth/introspection/introspection-request.ts';
import { PushedRequestSchema } from '#shared/oauth/par/push-authorization-request.ts';
import { RevokeRequestSchema } from '#shared/oauth/revoke-token.ts';
import { UserinfoBodySchema, UserinfoQuerySchema } from '#shared/oauth/userinfo/userinfo-request.ts';
import { SYSTEM_ACTOR_ID } from '#shared/records/common.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { routeGroup } from '#shared/routes/function-groups.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { clientLinksRepository } from '#shared/store/clients/client-links-repository.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { resourcesRepository } from '#shared/store/resources/resources-repository.ts';
import { otpRepository } from '#shared/store/users/otp-repository.ts';
import { arbitraryFromSchema } from '../support/fuzz/arbitrary-from-schema.ts';
import { formName, toJsonText } from '../support/fuzz/fuzz-values.ts';
import { userToken } from '../support/oauth/user-tokens.ts';
import { createTestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { testRuntime } from '../support/service/test-runtime.ts';
import { putUser } from '../support/store/user-items.ts';

type Handler = (e: APIGatewayProxyEvent, c: Context) => Promise<HttpResponse>;
let runtime: Runtime;
const handlers: Record<string, Handler> = {};

/** Each endpoint with the schemas its handler validates with (functions/oauth/*.ts). */
const ENDPOINTS: { name: string; file?: string; body: v.GenericSchema; query?: v.GenericSchema; method?: 'GET' | 'POST' }[] = [
  { name: 'token', body: TokenRequestSchema },
  { name: 'tokeninfo', body: IntrospectionBodySchema, query: IntrospectionQuerySchema },
  { name: 'introspect', body: IntrospectionBodySchema, query: IntrospectionQuerySchema },
  { name: 'revoke', body: RevokeRequestSchema },
  { name: 'userinfo', body: UserinfoBodySchema, query: UserinfoQuerySchema, method: 'GET' },
  { name: 'userinfo', body: UserinfoBodySchema, query: UserinfoQuerySchema },
  { name: 'device_code', file: 'device-code', body: DeviceCodeRequestSchema, query: DeviceCodeRequestSchema, method: 'GET' },
  { name: 'device_code', file: 'device-code', body: DeviceCodeRequestSchema, query: DeviceCodeRequestSchema },
  { name: 'par', body: PushedRequestSchema },
];

/** Real user tokens (with and without `openid`, of a user, of a blocked user), so the fuzzers reach past verification. */
const userBearers: string[] = [];

beforeAll(async () => {
  runtime = testRuntime(await createTestTable('fuzz'));
  for (const { name, file = name } of ENDPOINTS) {
    handlers[name] = ((await import(`../../functions/oauth/${file}.ts`)) as { handler: Handler }).handler;
  }
  const rp = await clientsRepository(runtime.db, runtime.config.tableName, runtime.now, runtime.secretBox).create(
    { tenant_id: DEFAULT_TENANT_ID, client_name: 'fuzz rp' },
    SYSTEM_ACTOR_ID,
  );
  // A public client that may use the device flow, so /device_code and the grant get past authentication.
  deviceClientIds.push(
    (
      await clientsRepository(runtime.db, runtime.config.tableName, runtime.now, runtime.secretBox).create(
        { tenant_id: DEFAULT_TENANT_ID, client_name: 'fuzz tv', is_public: true, client_metadata: { grant_types: ['device_code'] } },
        SYSTEM_ACTOR_ID,
      )
    ).id,
  );
  const user = await putUser(runtime, { email: 'fuzz@example.com', phone_number: '+15550000000', name: 'Fuzz' });
  const blocked = await putUser(runtime, { email: 'blocked@example.com', blocked: true });
  for (const [u, scope] of [
    [user, 'openid profile email address phone'],
    [user, 'profile'],
    [blocked, 'openid'],
  ] as const)
    userBearers.push(await userToken(runtime, u, { clientId: rp.id, scope }));
});

const realUserToken = fc.constantFrom(0, 1, 2).map((i) => userBearers[i]!);

/** A confidential client of the default tenant that may use `grant_types`; returns its Basic header. */
async function confidentialClient(client_name: string, client_secret: string, grant_types: string[]): Promise<string> {
  const { db, config, now, secretBox } = runtime;
  const client = await clientsRepository(db, config.tableName, now, secretBox).create(
    { tenant_id: DEFAULT_TENANT_ID, client_name, client_secret, client_metadata: { grant_types } },
    SYSTEM_ACTOR_ID,
  );
  return `Basic ${Buffer.from(`${client.id}:${client_secret}`).toString('base64')}`;
}
const deviceClientIds: string[] = [];

/** Values no schema names: the grant names and spellings /token knows, and broken percent-encoding. */
const hints = {
  grant_type: (derived: fc.Arbitrary<unknown>) =>
    fc.oneof(
      derived,
      fc.constantFrom('client_credentials', 'password', 'otp', 'refresh_token', 'device_code', 'implicit', '', '%', '%E0%A4%A'),
    ),
  token_type_hint: (derived: fc.Arbitrary<unknown>) => fc.oneof(derived, fc.constantFrom('access_token', 'refresh_token')),
  // Real user tokens where a token goes (introspection's `token`, /userinfo's form `access_token`).
  token: (derived: fc.Arbitrary<unknown>) => fc.oneof(derived, realUserToken),
  access_token: (derived: fc.Arbitrary<unknown>) => fc.oneof(derived, realUserToken),
  client_id: (derived: fc.Arbitrary<unknown>) =>
    fc.oneof(
      derived,
      fc.constant(0).map(() => deviceClientIds[0]!),
    ),
  audience: (derived: fc.Arbitrary<unknown>) => fc.oneof(derived, fc.constantFrom('https://nowhere.example/', `${'x'.repeat(300)}`)),
};
const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
const text = (x: unknown) => (typeof x === 'string' ? x : (JSON.stringify(x) ?? ''));

const contentTypes = fc.constantFrom(
  'application/x-www-form-urlencoded',
  'application/json',
  'text/plain',
  'application/json; charset=utf-8',
  '',
);
function bodies(schema: v.GenericSchema): fc.Arbitrary<string> {
  const params = arbitraryFromSchema(schema, { hints });
  return fc.oneof(
    params.map((p) => {
      const form = new URLSearchParams();
      if (isObject(p))
        for (const [k, x] of Object.entries(p)) for (const one of Array.isArray(x) ? x : [x]) form.append(formName(k), text(one));
      return form.toString();
    }),
    params.map((p) => toJsonText(p)),
    fc.string(),
    fc.constantFrom('{', 'null', '[]', '"x"', '1e999', '{"grant_type":{"a":1}}'),
    // docs/contract.md §8: invalid UTF-8 (percent-encoded, or as the U+FFFD API Gateway leaves), duplicate JSON members.
    fc.constantFrom(
      'grant_type=client_credentials&scope=%FF',
      'token=%C0%AF',
      'grant_type=client_credentials\uFFFD',
      '{"token":"a","token":"b"}',
      '{"grant_type":"client_credentials","grant\\u005ftype":"password"}',
      '{"token":"\uFFFD"}',
    ),
  );
}
/** Query parameters (strings, as API Gateway passes them) of the endpoints that read a query. */
function queries(schema: v.GenericSchema | undefined): fc.Arbitrary<Record<string, string> | undefined> {
  if (!schema) return fc.constant(undefined);
  const query = arbitraryFromSchema(schema, { hints }).map((q) =>
    isObject(q) ? Object.fromEntries(Object.entries(q).map(([k, x]) => [formName(k), text(x)])) : undefined,
  );
  return fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: query });
}
const authorizations = fc.oneof(
  fc.constant(undefined),
  realUserToken.map((t) => `Bearer ${t}`),
  fc.string().map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
  fc.string().map((s) => `Bearer ${s}`),
  fc.constantFrom('Basic', 'Basic !!!', 'Bearer', 'Bearer a.b.c', 'Basic Og=='),
);

/** docs/design.md §3.12: whatever a client sends, the answer is a JSON error body with a 4xx, never a 500. */
describe('fuzz: OAuth endpoints never answer 5xx to client input', () => {
  it('every OAuth route that takes input (its use case authenticates the caller) is declared', () => {
    const taking = ROUTES.filter((r) => routeGroup(r) === 'oauth' && r.auth.type === 'client').map((r) => `${r.method} ${r.path}`);
    expect(ENDPOINTS.map((e) => `${e.method ?? 'POST'} /${e.name}`).sort()).toEqual(taking.sort());
  });

  for (const { name, body, query, method = 'POST' } of ENDPOINTS) {
    it(`${method} /${name}`, async () => {
      await fc.assert(
        fc.asyncProperty(bodies(body), queries(query), contentTypes, authorizations, async (text, q, contentType, authorization) => {
          const headers: Record<string, string> = { 'Content-Type': contentType };
          if (authorization) headers.Authorization = authorization;
          const event = restEvent({ method, resource: `/${name}`, headers, body: text, ...(q ? { query: q } : {}) });
          const res = await runWithRuntime(runtime, () => handlers[name]!(event, lambdaContext));
          expect(res.statusCode, res.body).toBeLessThan(500);
          if (res.statusCode >= 400) expect(JSON.parse(res.body)).toMatchObject({ code: expect.any(String), message: expect.any(String) });
        }),
        { numRuns: 150 },
      );
    });
  }
});

/**
 * Revocation is bound (docs/contract.md §8): tokens forged by a client that holds an HS256 Resource's secret, with
 * every claim fuzzed (jti taken from other clients' tokens or made up, client_id, tenant_id, aud,
 * iat up to hours ahead, alg and kid headers). Whatever it posts to /revoke: never a 5xx, only 200
 * or 400 unauthorized_client, and never another client's token revoked; /introspect never calls a
 * token with iat more than 60 s ahead active (docs/contract.md §8).
 */
describe("fuzz: forged tokens never revoke another client's token, and a future iat is never active", () => {
  const SECRET = 'fuzz-hs256-secret-known-to-the-attacker-0123';
  const CLIENT_SECRET = 'fuzz-client-secret-0123456789abcdefghijklmnopqrstuv';
  let audience: string;
  let attacker: string;
  let victim: string;
  let victimTokens: string[];
  const basic = (id: string) => `Basic ${Buffer.from(`${id}:${CLIENT_SECRET}`).toString('base64')}`;
  const post = (name: string, params: Record<string, string>, authorization: string) =>
    runWithRuntime(runtime, () =>
      handlers[name]!(
        restEvent({
          method: 'POST',
          resource: `/${name}`,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: authorization },
          body: new URLSearchParams(params).toString(),
        }),
        lambdaContext,
      ),
    );

  beforeAll(async () => {
    const { db, config, now, secretBox } = runtime;
    const clients = clientsRepository(db, config.tableName, now, secretBox);
    const resources = resourcesRepository(db, config.tableName, now, secretBox);
    attacker = (
      await clients.create({ tenant_id: DEFAULT_TENANT_ID, client_name: 'attacker', client_secret: CLIENT_SECRET }, SYSTEM_ACTOR_ID)
    ).id;
    victim = (await clients.create({ tenant_id: DEFAULT_TENANT_ID, client_name: 'victim', client_secret: CLIENT_SECRET }, SYSTEM_ACTOR_ID))
      .id;
    audience = 'https://fuzz-hs256.example.com/';
    const hs = await resources.create(
      {
        tenant_id: DEFAULT_TENANT_ID,
        resource_type: 'api',
        resource_name: 'hs',
        resource_metadata: { identifier_url: audience, signing_algorithm: 'HS256', signing_secret: SECRET },
      },
      SYSTEM_ACTOR_ID,
      [],
    );
    const es = await resources.create(
      {
        tenant_id: DEFAULT_TENANT_ID,
        resource_type: 'api',
        resource_name: 'es',
        resource_metadata: { identifier_url: 'https://fuzz-es256.example.com/' },
      },
      SYSTEM_ACTOR_ID,
      [],
    );
    await clientLinksRepository(db, config.tableName, now).authorize(attacker, [hs.id], SYSTEM_ACTOR_ID);
    await clientLinksRepository(db, config.tableName, now).authorize(victim, [hs.id, es.id], SYSTEM_ACTOR_ID);
    victimTokens = [];
    for (const aud of [audience, 'https://fuzz-es256.example.com/']) {
      const res = await runWithRuntime(runtime, () =>
        handlers.token!(
          restEvent({
            method: 'POST',
            resource: '/token',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic(victim) },
            body: new URLSearchParams({ grant_type: 'client_credentials', audience: aud }).toString(),
          }),
          lambdaContext,
        ),
      );
      expect(res.statusCode, res.body).toBe(200);
      victimTokens.push((JSON.parse(res.body) as { access_token: string }).access_token);
    }
  });

  const jtiOf = (t: string) => (JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti;
  const forged = fc.record({
    jti: fc.oneof(
      fc.constantFrom(0, 1).map((i) => ({ victim: i })),
      fc.string({ minLength: 1, maxLength: 40 }),
    ),
    clientId: fc.constantFrom('attacker', 'victim'),
    tenantId: fc.constantFrom(DEFAULT_TENANT_ID, '00000000-0000-4000-8000-000000000000'),
    aud: fc.constantFrom('own', 'https://fuzz-es256.example.com/', 'https://nothing.example/'),
    iatOffset: fc.integer({ min: -3600, max: 4 * 3600 }),
    header: fc.constantFrom<Record<string, string>>({}, { kid: 'made-up' }, { kid: '' }),
  });

  it('POST /revoke and /introspect with forged HS256 tokens', async () => {
    await fc.assert(
      fc.asyncProperty(forged, async (f) => {
        const now = Math.floor(Date.now() / 1000);
        const jti = typeof f.jti === 'string' ? f.jti : jtiOf(victimTokens[f.jti.victim]!);
        const token = await new SignJWT({ client_id: f.clientId === 'attacker' ? attacker : victim, tenant_id: f.tenantId, scope: '', jti })
          .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', ...f.header })
          .setIssuer(runtime.config.issuer)
          .setSubject(attacker)
          .setAudience(f.aud === 'own' ? audience : f.aud)
          .setIssuedAt(now + f.iatOffset)
          .setNotBefore(now - 10)
          .setExpirationTime(now + 600)
          .sign(new TextEncoder().encode(SECRET));
        const info = await post('introspect', { token }, basic(victim));
        expect(info.statusCode, info.body).toBe(200);
        if (f.iatOffset > 60) expect(JSON.parse(info.body)).toEqual({ active: false });
        const revoked = await post('revoke', { token }, basic(attacker));
        expect([200, 400], revoked.body).toContain(revoked.statusCode);
        if (revoked.statusCode === 400) expect(JSON.parse(revoked.body).error).toBe('unauthorized_client');
        for (const t of victimTokens) expect(JSON.parse((await post('introspect', { token: t }, basic(victim))).body).active).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

/**
 * The password and otp grants (docs/users.md): for a client that may use them, any `username`,
 * `password` and `otp` (the real user's login among them, so the lockout and the authenticator
 * are reached too) is a 400 or a 429 with `{code, message}`: never a 5xx, never a token.
 */
describe('fuzz: the password and otp grants never answer 5xx or a token to guesses', () => {
  const SECRET = 'fuzz-login-secret-0123456789abcdefghijklmnopqrstuvw';
  let authorization = '';

  beforeAll(async () => {
    const { db, config, now, secretBox } = runtime;
    authorization = await confidentialClient('login fuzz', SECRET, ['password', 'otp']);
    const stored = await putUser(runtime, {
      username: 'fuzz_user',
      email: 'fuzz.user@example.com',
      password_hash: await hashPassword('not-guessable-9-Quokka'),
    });
    await otpRepository(db, config.tableName, now, secretBox, { maxFailures: 100 }).enroll(stored.id);
  });

  const attempts = fc.record({
    grant_type: fc.constantFrom('password', 'otp'),
    username: fc.oneof(
      fc.constantFrom('fuzz_user', 'FUZZ.USER@example.com', '+15550000000', ''),
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'binary' }),
    ),
    password: fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 130 })),
    otp: fc.oneof(fc.stringMatching(/^[0-9]{6}$/), fc.string({ maxLength: 10 })),
  });

  it('POST /token with grant_type password or otp', async () => {
    await fc.assert(
      fc.asyncProperty(attempts, async (params) => {
        const event = restEvent({
          method: 'POST',
          resource: '/token',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: authorization },
          body: new URLSearchParams(params).toString(),
        });
        const res = await runWithRuntime(runtime, () => handlers.token!(event, lambdaContext));
        expect([400, 429], res.body).toContain(res.statusCode);
        const body = JSON.parse(res.body);
        expect(body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
        expect(body.access_token).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });
});

/**
 * The refresh_token grant (docs/tokens.md "Refresh"): for a client that may use it, any
 * `refresh_token` (the real one, cut or changed versions of it, made-up strings) and any `scope` is
 * a 400 with `{code, message}`, never a 5xx; the real token gets at most one 200 (its rotation),
 * and only for a scope it holds.
 */
describe('fuzz: the refresh_token grant never answers 5xx, and the real token rotates at most once', () => {
  const SECRET = 'fuzz-refresh-secret-0123456789abcdefghijklmnopqrstu';
  const PASSWORD = 'not-guessable-9-Wombat';
  let authorization = '';
  let real = '';
  const post = (params: Record<string, string>) =>
    runWithRuntime(runtime, () =>
      handlers.token!(
        restEvent({
          method: 'POST',
          resource: '/token',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: authorization },
          body: new URLSearchParams(params).toString(),
        }),
        lambdaContext,
      ),
    );

  beforeAll(async () => {
    authorization = await confidentialClient('refresh fuzz', SECRET, ['password', 'refresh_token']);
    await putUser(runtime, {
      username: 'fuzz_refresh',
      password_hash: await hashPassword(PASSWORD, { memoryKiB: 4096, passes: 1, parallelism: 1 }),
    });
    const res = await post({ grant_type: 'password', username: 'fuzz_refresh', password: PASSWORD, scope: 'openid offline_access' });
    expect(res.statusCode, res.body).toBe(200);
    real = JSON.parse(res.body).refresh_token;
    expect(real).toEqual(expect.any(String));
  });

  const mutate = (t: string) =>
    fc.oneof(
      fc.constant(t),
      fc.nat({ max: t.length }).map((n) => t.slice(0, n)),
      fc.string({ maxLength: 5 }).map((s) => `${t}${s}`),
      fc.nat({ max: Math.max(0, t.length - 1) }).map((i) => `${t.slice(0, i)}${t[i] === 'A' ? 'B' : 'A'}${t.slice(i + 1)}`),
      fc.constant(t.toUpperCase()),
    );
  const attempts = fc.record({
    grant_type: fc.constant('refresh_token'),
    refresh_token: fc.oneof(
      fc.constant(0).chain(() => mutate(real)),
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 100 }),
      fc.constantFrom('', '.', 'a.b.c', '%00', 'x'.repeat(5000)),
    ),
    scope: fc.oneof(fc.constantFrom('openid', 'openid offline_access', 'openid email', 'read:users', ''), fc.string({ maxLength: 100 })),
  });

  it('POST /token with grant_type refresh_token', async () => {
    let rotated = 0;
    await fc.assert(
      fc.asyncProperty(attempts, async (params) => {
        const res = await post(params);
        expect([200, 400], res.body).toContain(res.statusCode);
        const body = JSON.parse(res.body);
        if (res.statusCode === 200) {
          rotated++;
          expect(params.refresh_token).toBe(real);
          expect(body.refresh_token).not.toBe(real);
        } else {
          expect(body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
          expect(body.access_token).toBeUndefined();
        }
      }),
      { numRuns: 60 },
    );
    expect(rotated).toBeLessThanOrEqual(1);
  });
});
