import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { bootstrap } from '../../shared/bootstrap/bootstrap.ts';
import { generateClientSecret } from '../../shared/clients/client-secret.ts';
import type { HttpResponse } from '../../shared/http/response.ts';
import { clientPermissionsCollection, clientResourcesCollection, clientsCollection, resourceClientsCollection, resourcesCollection, scopesCollection } from '../../shared/lists/index.ts';
import type { CollectionSpec } from '../../shared/lists/collection-spec.ts';
import { CLIENT_TYPES } from '../../shared/management/clients/client-body-schemas.ts';
import { GRANT_TYPES } from '../../shared/management/clients/client-metadata-schema.ts';
import { SYSTEM_ACTOR_ID } from '../../shared/records/common.ts';
import { DEFAULT_TENANT_ID } from '../../shared/records/tenant-record.ts';
import { MANAGEMENT_SCOPES, ROUTES, type Route } from '../../shared/routes.ts';
import { runWithRuntime, type Runtime } from '../../shared/runtime.ts';
import { entity } from '../../shared/store/entity.ts';
import { keys } from '../../shared/store/keys.ts';
import { uuidv7 } from '../../shared/store/uuidv7.ts';
import { createTestTable } from '../support/dynamodb.ts';
import { lambdaContext, proxyEvent } from '../../infra/local/proxy-event.ts';
import { testRuntime } from '../support/test-runtime.ts';

/**
 * Shared machinery of the management fuzz tests (DESIGN.md §3.12): one table, bootstrapped, seen
 * through two runtimes (single- and multi-tenant mode, so the `tenant_id` header and body rules of
 * both are reached), real tokens, fresh seed records per route, and arbitraries built from the
 * field names the handlers' schemas use. Every request goes in-process through the real middy
 * chain, as API Gateway would deliver it.
 */

type Handler = (e: APIGatewayProxyEvent, c: Context) => Promise<HttpResponse>;

const handlers = new Map<string, Handler>();
async function handlerOf(module: string): Promise<Handler> {
  let h = handlers.get(module);
  // The route table names modules two levels deep, past what Vite's dynamic-import rewriting takes.
  if (!h) handlers.set(module, (h = ((await import(/* @vite-ignore */ `../../${module}.ts`)) as { handler: Handler }).handler));
  return h;
}

/** One request, as the fuzzers describe it; `query` keeps repeats (multiValueQueryStringParameters). */
export interface Call {
  route: Route;
  multiTenant: boolean;
  pathParameters: Record<string, string> | null;
  headers: Record<string, string>;
  query: readonly (readonly [string, string])[];
  body: string | undefined;
  isBase64Encoded?: boolean;
  /** Every value of a repeated header (API Gateway's `multiValueHeaders`); default one per `headers` entry. */
  multiValueHeaders?: Record<string, string[]>;
}

export interface Seeds {
  /** A confidential global client with `resourceId` authorized and `scopeId` granted. */
  clientId: string;
  publicClientId: string;
  resourceId: string;
  scopeId: string;
  /** A second scope of `resourceId`, not granted. */
  otherScopeId: string;
  /** A resource authorized to nobody. */
  freeResourceId: string;
  /** A non-global client of `otherTenantId` and its all-scopes management token. */
  tenantClientId: string;
  tenantToken: string;
}

export interface World {
  single: Runtime;
  multi: Runtime;
  defaultClientId: string;
  systemResourceId: string;
  systemScopeId: string;
  otherTenantId: string;
  tokens: { admin: string; noScope: string; otherAudience: string };
  cursors: string[];
  invoke(call: Call): Promise<HttpResponse>;
  /** Fresh records for one route's fuzzing, so a DELETE of an earlier route does not starve it. */
  seed(): Promise<Seeds>;
}

/** `path` is informational here (handlers read `pathParameters`); a lone surrogate cannot be URI-encoded. */
const escapePath = (v: string) => (v.isWellFormed() ? encodeURIComponent(v) : v);

const ok = async (res: Promise<HttpResponse>, status: number, what: string) => {
  const r = await res;
  if (r.statusCode !== status) throw new Error(`${what}: ${r.statusCode} ${r.body}`);
  return r.body ? (JSON.parse(r.body) as Record<string, any>) : {};
};

export const M = '/identity/v1';

const ROUTE_BY_KEY = new Map(ROUTES.map((r) => [`${r.method} ${r.path}`, r]));
const route = (method: string, path: string): Route => {
  const r = ROUTE_BY_KEY.get(`${method} ${path}`);
  if (!r) throw new Error(`no route ${method} ${path}`);
  return r;
};

export async function createWorld(prefix: string): Promise<World> {
  const table = await createTestTable(prefix);
  // Both runtimes must unwrap the same keys: one master key file.
  const masterKey = join(mkdtempSync(join(tmpdir(), 'idkeys-')), 'master.key');
  const single = testRuntime(table, { LOCAL_MASTER_KEY_FILE: masterKey });
  const defaultClientId = uuidv7();
  const defaultClientSecret = generateClientSecret();
  await bootstrap({
    db: single.db,
    tableName: single.config.tableName,
    secretBox: single.secretBox,
    now: single.now,
    managementAudience: single.config.managementAudience,
    defaultClientId,
    defaultClientSecret,
  });
  const multi = testRuntime(table, { LOCAL_MASTER_KEY_FILE: masterKey, MULTI_TENANT: 'true' });

  const invoke = async (call: Call): Promise<HttpResponse> => {
    const runtime = call.multiTenant ? multi : single;
    // Own keys even for `__proto__`/`constructor`, as JSON.parse gives them to the Lambda.
    const lastValue: Record<string, string> = {};
    const multiQ: Record<string, string[]> = {};
    for (const [k, v] of call.query) {
      const values = Object.hasOwn(multiQ, k) ? multiQ[k]! : [];
      values.push(v);
      define(lastValue, k, v);
      define(multiQ, k, values);
    }
    const hasQuery = call.query.length > 0;
    let path = call.route.path;
    for (const [k, v] of Object.entries(call.pathParameters ?? {})) path = path.replace(`{${k}}`, escapePath(v));
    const event = {
      ...proxyEvent(
        {
          method: call.route.method,
          resource: call.route.path,
          path,
          headers: call.headers,
          ...(call.multiValueHeaders ? { multiValueHeaders: call.multiValueHeaders } : {}),
          ...(hasQuery ? { query: lastValue, multiValueQuery: multiQ } : {}),
          ...(call.pathParameters ? { pathParameters: call.pathParameters } : {}),
          body: call.body ?? null,
        },
        'test',
      ),
      isBase64Encoded: call.isBase64Encoded ?? false,
    };
    const handler = await handlerOf(call.route.handler);
    // A context per invocation: its 30 s budget counts from now, as each Lambda invocation's does.
    return runWithRuntime(runtime, () => handler(event, lambdaContext(call.route.handler)));
  };

  // The admin token comes from /token itself, as an operator gets it.
  const tokenRes = await ok(
    invoke({
      route: route('POST', '/token'),
      multiTenant: false,
      pathParameters: null,
      headers: {
        Authorization: `Basic ${Buffer.from(`${defaultClientId}:${defaultClientSecret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      query: [],
      body: new URLSearchParams({ grant_type: 'client_credentials', audience: single.config.managementAudience }).toString(),
    }),
    200,
    'token',
  );
  const admin = tokenRes.access_token as string;

  const otherTenantId = randomUUID();
  const at = new Date().toISOString();
  // The Tenants endpoints do not exist yet: the record is written as tenants-repository.ts shapes it.
  await single.db.send(
    new PutCommand({
      TableName: single.config.tableName,
      Item: {
        ...keys.tenant(otherTenantId),
        GSI1PK: keys.tenantsCollection,
        GSI1SK: otherTenantId,
        ...entity('Tenant'),
        id: otherTenantId,
        tenant_name: `fuzz-${otherTenantId}`,
        tenant_metadata: [],
        is_default: false,
        version: 1,
        created_by: SYSTEM_ACTOR_ID,
        created_at: at,
        updated_by: SYSTEM_ACTOR_ID,
        updated_at: at,
      },
    }),
  );

  /** A well-formed admin request, for the fixtures. */
  const call = (method: string, path: string, params: Record<string, string> | null, body?: unknown, query: [string, string][] = [], multiTenant = false) =>
    invoke({
      route: route(method, path),
      multiTenant,
      pathParameters: params,
      headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
      query,
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const sign = (claims: Record<string, unknown>) => {
    const now = Math.floor(Date.now() / 1000);
    return single.keys.signJwt('ES256', { typ: 'at+jwt' }, {
      iss: single.config.issuer,
      aud: single.config.managementAudience,
      iat: now,
      nbf: now,
      exp: now + 3600,
      jti: randomUUID(),
      ...claims,
    });
  };
  const tokens = {
    admin,
    noScope: await sign({ sub: defaultClientId, client_id: defaultClientId, scope: 'read:users' }),
    otherAudience: await sign({ sub: defaultClientId, client_id: defaultClientId, aud: 'https://elsewhere.example/', scope: MANAGEMENT_SCOPES.join(' ') }),
  };

  const resources = await ok(call('GET', `${M}/resources`, null, undefined, [['limit', '100']]), 200, 'resources');
  const systemResource = (resources.items as Record<string, any>[]).find((r) => r.resource_metadata?.is_system);
  if (!systemResource) throw new Error('no system resource');
  const scopes = await ok(call('GET', `${M}/resources/{resource_id}/scopes`, { resource_id: systemResource.id }, undefined, [['limit', '2']]), 200, 'scopes');
  const allScopes = await ok(call('GET', `${M}/resources/{resource_id}/scopes`, { resource_id: systemResource.id }, undefined, [['limit', '100']]), 200, 'scopes');
  const allSystemScopes = (allScopes.items as { id: string }[]).map((x) => x.id);

  let n = 0;
  const seed = async (): Promise<Seeds> => {
    const i = ++n;
    const client = await ok(call('POST', `${M}/clients`, null, { client_name: `seed ${i}`, client_metadata: { grant_types: ['client_credentials'] } }), 201, 'seed client');
    const publicClient = await ok(call('POST', `${M}/clients`, null, { client_name: `public ${i}`, is_public: true }), 201, 'seed public client');
    const mkResource = (name: string) =>
      ok(
        call('POST', `${M}/resources`, null, { resource_type: 'api', resource_name: name, resource_metadata: { identifier_url: `https://${name}-${randomUUID()}.example/` } }),
        201,
        'seed resource',
      );
    const resource = await mkResource(`api${i}`);
    const free = await mkResource(`free${i}`);
    const scope = await ok(call('POST', `${M}/resources/{resource_id}/scopes`, { resource_id: resource.id }, { scope_name: 'read' }), 201, 'seed scope');
    const other = await ok(call('POST', `${M}/resources/{resource_id}/scopes`, { resource_id: resource.id }, { scope_name: 'write' }), 201, 'seed scope');
    await ok(call('POST', `${M}/clients/{client_id}/resources`, { client_id: client.id }, { resources: [resource.id] }), 204, 'seed link');
    await ok(
      call('POST', `${M}/clients/{client_id}/permissions`, { client_id: client.id }, { permissions: [{ resource_id: resource.id, scopes: [scope.id] }] }),
      204,
      'seed permission',
    );
    // Made per route too: a fuzzed DELETE of it must not turn the rest of the run into 401s.
    const tenantClient = await ok(
      call('POST', `${M}/clients`, null, { client_name: `tenant admin ${i}`, is_global: false, tenant_id: otherTenantId }, [], true),
      201,
      'tenant client',
    );
    // Its token's scopes count only while the client holds them (API.md §8): grant them for real.
    await ok(call('POST', `${M}/clients/{client_id}/resources`, { client_id: tenantClient.id }, { resources: [systemResource.id] }), 204, 'tenant client link');
    await ok(call('POST', `${M}/clients/{client_id}/permissions`, { client_id: tenantClient.id }, { permissions: [{ resource_id: systemResource.id, scopes: allSystemScopes }] }), 204, 'tenant client permissions');
    const tenantToken = await sign({ sub: tenantClient.id, client_id: tenantClient.id, tenant_id: otherTenantId, scope: MANAGEMENT_SCOPES.join(' ') });
    return {
      clientId: client.id,
      publicClientId: publicClient.id,
      resourceId: resource.id,
      scopeId: scope.id,
      otherScopeId: other.id,
      freeResourceId: free.id,
      tenantClientId: tenantClient.id,
      tenantToken,
    };
  };

  // Real cursors of a few lists, so `cursor` is also fuzzed with valid and lightly tampered ones.
  const cursors: string[] = [];
  for (const [path, params] of [
    [`${M}/clients`, null],
    [`${M}/resources`, null],
    [`${M}/resources/{resource_id}/scopes`, { resource_id: systemResource.id }],
    [`${M}/clients/{client_id}/permissions`, { client_id: defaultClientId }],
  ] as const) {
    await seed(); // also makes sure the first two lists have more than one page
    const page = await ok(call('GET', path, params, undefined, [['limit', '1']]), 200, 'cursor');
    if (typeof page.next_cursor === 'string') cursors.push(page.next_cursor);
  }
  if (cursors.length < 3) throw new Error(`expected cursors, got ${cursors.length}`);

  return {
    single,
    multi,
    defaultClientId,
    systemResourceId: systemResource.id,
    systemScopeId: scopes.items[0].id,
    otherTenantId,
    tokens,
    cursors,
    invoke,
    seed,
  };
}

// ---------------------------------------------------------------------------------------------
// The property (DESIGN.md §3.12, API.md §2).

const clip = (s: string, n = 400) => (s.length > n ? `${s.slice(0, n)}...(${s.length} chars)` : s);

/** What a failure prints (also fast-check's counterexample): enough to replay the request by hand. */
export function describeCall(call: Call, tokens?: Record<string, string>): string {
  const names = Object.entries(tokens ?? {}).map(([name, t]) => [t, `<${name} token>`] as const);
  const headers = Object.fromEntries(
    Object.entries(call.headers).map(([k, v]) => [k, clip(names.reduce((acc, [t, name]) => acc.replaceAll(t, name), v), 120)]),
  );
  return [
    `${call.route.method} ${call.route.path} (${call.multiTenant ? 'multi' : 'single'}-tenant)`,
    `  path: ${clip(JSON.stringify(call.pathParameters) ?? 'null', 300)}`,
    `  query: ${clip(JSON.stringify(call.query))}`,
    `  headers: ${JSON.stringify(headers)}`,
    `  body${call.isBase64Encoded ? ' (base64)' : ''}: ${call.body === undefined ? '(none)' : clip(call.body, 800)}`,
  ].join('\n');
}

/**
 * What the fuzzing reached, per route: status and the first words of each error message. Printed
 * with FUZZ_STATS=1, to see that the runs get past validation into the use cases and the store.
 */
const stats = new Map<string, Map<string, number>>();
export function record(call: Call, res: HttpResponse): void {
  const key = `${call.route.method} ${call.route.path}`;
  let m = stats.get(key);
  if (!m) stats.set(key, (m = new Map()));
  let what = String(res.statusCode);
  if (res.statusCode >= 400) {
    try {
      what += ` ${String((JSON.parse(res.body) as { message: string }).message).replace(/[{"].*$/, '').slice(0, 60)}`;
    } catch {
      what += ' (not JSON)';
    }
  }
  m.set(what, (m.get(what) ?? 0) + 1);
}
export function printStats(): void {
  if (!process.env.FUZZ_STATS) return;
  for (const [route, m] of stats) {
    const lines = [...m].sort((a, b) => b[1] - a[1]).map(([k, n]) => `    ${String(n).padStart(4)} ${k}`);
    process.stdout.write(`${route}\n${lines.join('\n')}\n`);
  }
}

/** Status < 500; a 4xx is JSON `{code, message}`, and a 400's message names where the problem is. */
export function expectClientError(call: Call, res: HttpResponse): void {
  record(call, res);
  const why = `${String(call)}\n  => ${res.statusCode} ${clip(res.body, 600)}`;
  expect(res.statusCode, why).toBeLessThan(500);
  expect(res.statusCode, why).toBeGreaterThanOrEqual(200);
  if (res.statusCode >= 400) {
    let body: unknown;
    expect(() => (body = JSON.parse(res.body)), why).not.toThrow();
    expect(body, why).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    if (res.statusCode === 400) expect((body as { message: string }).message, why).toMatch(/^(body|query|path|header)[.:]/);
  } else if (res.body) {
    expect(() => JSON.parse(res.body), why).not.toThrow();
  }
}

// ---------------------------------------------------------------------------------------------
// Arbitraries. Mostly valid requests with one targeted mutation at a time: random junk in every
// field would stop nearly every run at the first validation issue and never reach the use cases
// and the store, where the 500s hide.

/** A placeholder replaced after JSON.stringify by a raw token JSON.stringify cannot write. */
const RAW = '\u0000raw\u0000';
const RAW_TOKENS = ['1e999', '-1e999', '1e400', '-0', '1e-400', '123456789012345678901234567890', '0.1e-999', '9007199254740993', '1E2'];

const hugeString = (n: number) => fc.constant('x'.repeat(n));

/** `{"a":{"a":...}}` / `[[...]]`, `depth` levels: past DynamoDB's 32-level document limit. */
function deepObject(depth: number): unknown {
  let x: unknown = depth % 2 ? 'leaf' : 1;
  for (let i = 0; i < depth; i++) x = i % 3 === 2 ? [x] : { a: x };
  return x;
}

/** Numbers DynamoDB cannot store (range 1e-130..1e126, 38 digits) or JSON cannot carry. */
const awkwardNumber = fc.constantFrom(1e20, 2 ** 53 + 2, -1e300, 1e300, 1e-300, 5e-324, -0, 0.1 + 0.2, Number.MAX_VALUE, RAW);

/** Values of the wrong type or size for about any field. */
export const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, '', ' ', '\t\n', '\u0000', '\ud800', 'a\udfffb', [], {}, [null], { '': '' }),
  awkwardNumber,
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer(),
  fc.double(),
  hugeString(5_000),
  fc.jsonValue({ maxDepth: 2 }),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.integer({ min: 20, max: 60 }).map(deepObject),
);

const define = (o: Record<string, unknown>, k: string, v: unknown) =>
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });

const EXTRA_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'id', 'version', 'aggregations', 'created_at', 'tenant_id', ''];

type Mutation =
  | { kind: 'field'; name: string; value: unknown }
  | { kind: 'drop'; name: string }
  | { kind: 'extra'; name: string; value: unknown }
  | { kind: 'replace'; value: unknown };

interface ObjOptions {
  required?: readonly string[];
  /** Field names of other bodies, tried as unknown fields. */
  extraNames?: readonly string[];
  /** One object in `rarity` is mutated: 4 for a whole body, more for nested objects so that most bodies stay valid. */
  rarity?: number;
}

/**
 * An object of some of `fields` (`required` always), and sometimes one mutation: a field's value
 * replaced by junk, a field dropped, an extra key (prototype names, typos, fields of other
 * bodies), or the whole object replaced by junk.
 */
export function obj(fields: Record<string, fc.Arbitrary<unknown>>, { required = [], extraNames = [], rarity = 10 }: ObjOptions = {}): fc.Arbitrary<unknown> {
  const names = Object.keys(fields);
  const base = fc.record(fields, { requiredKeys: [...required] }) as fc.Arbitrary<Record<string, unknown>>;
  const name = fc.constantFrom(...names);
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('field' as const), name, value: junk }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), name }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('extra' as const),
        name: fc.oneof(fc.constantFrom(...EXTRA_KEYS, ...extraNames, ...names.map((n) => `${n}_`), ...names.map((n) => n.toUpperCase())), fc.string()),
        value: fc.oneof(junk, ...Object.values(fields)),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), value: junk }) },
  );
  return fc
    .tuple(base, fc.oneof({ weight: rarity - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: mutation }))
    .map(([b, m]) => {
      if (!m) return b;
      if (m.kind === 'replace') return m.value;
      const out: Record<string, unknown> = { ...b };
      if (m.kind === 'drop') delete out[m.name];
      // defineProperty: `__proto__` must be an own key of the JSON, not a prototype change here.
      else define(out, m.name, m.value);
      return out;
    });
}

/** 1-3 items, sometimes none or just past the 50-id limit (most items valid). */
export const arr = (item: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.array(item, { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.array(item, { minLength: 49, maxLength: 52 }) },
    { weight: 1, arbitrary: fc.array(fc.oneof(item, junk), { minLength: 1, maxLength: 4 }) },
  );

/** Mostly `good`, sometimes one of the values at or past its bounds. */
const edge = <T>(good: fc.Arbitrary<T>, ...edges: T[]): fc.Arbitrary<T> => fc.oneof({ weight: 8, arbitrary: good }, { weight: 1, arbitrary: fc.constantFrom(...edges) });

/** A valid non-blank text, sometimes at or past its limit. */
const text = (max: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim().length > 0) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }).filter((s) => s.trim().length > 0) },
    // At the limit in UTF-16 units but three or four times as many UTF-8 bytes: limits on keys count bytes.
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(max), 'x'.repeat(max + 1), '€'.repeat(max), '😀'.repeat(Math.floor(max / 2)), ' ', '\ud800', 'a\u0000b') },
    // API.md §8 string rules: bidi controls, C1 controls, zero-width-only, U+FFFD.
    { weight: 1, arbitrary: fc.constantFrom('evil\u202Egpj.exe', 'x\u2066y', 'a\u0085b', '\u200B\u200B', '\u200B \u2060', '\uFEFF', 'a\u001Fb', '\uFFFD') },
  );
const freeText = (max: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(max), 'x'.repeat(max + 1), '\ud800', 'line\nbreak\ttab', 'a\u0000b', '\u202E', ' \u200B ', 'a\u009Bb') },
  );

const goodUrl = fc.oneof(fc.webUrl({ withQueryParameters: true }), fc.uuid().map((u) => `https://${u}.example/cb`), fc.constantFrom('http://localhost:3000/cb', 'myapp://callback', 'https://xn--bcher-kva.example/'));
const url = fc.oneof(
  { weight: 6, arbitrary: goodUrl },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'urn:x',
      'https://a.example/#frag',
      'not a url',
      '//no-scheme',
      'https://',
      `https://${'a'.repeat(2100)}.example/`,
      `https://a.example/${'€'.repeat(980)}`,
      `urn:${'é'.repeat(990)}`,
      'https://a.example/\ud800',
      'javascript:alert(1)',
      // API.md §8: look-alikes of one identifier (normalised or refused) and unsafe characters.
      'HTTPS://A.EXAMPLE:443/./x/../api',
      'https://a.example/%7Eapi/%2fx',
      'https://a.example//api',
      'https://user@a.example/',
      'https://a.example/\u0000',
      'https://a.example/\u202Egpj',
      'https://a.example/\tx',
      'https://bücher.example/€',
    ),
  },
);

const isoTimestamp = fc.oneof(
  { weight: 4, arbitrary: fc.date({ min: new Date('2030-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '2999-01-01T00:00:00Z',
      '2999-01-01T00:00:00+14:00',
      '2000-01-01T00:00:00Z',
      '2999-02-31T00:00:00Z',
      '9999-12-31T23:59:59.999+23:59',
      '9999-12-31T23:59:59.999-23:59',
      '0000-01-01T00:00Z',
      '2030-01-01',
      '2030-01-01T00:00:00',
      'tomorrow',
      '+275760-09-13T00:00:00.000Z',
      '2030-13-01T00:00:00Z',
      '2030-01-01T24:00:00Z',
      '2999-01-01T00:00:00.123456789Z',
    ),
  },
);

/** JSON values DynamoDB stores (fc.jsonValue's doubles are mostly out of its range). */
const plainJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { maxLength: 3 }),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean()), { maxKeys: 3 }),
);

/** Spec §2.3's open objects (urls/oauth/saml/wsfed): anything JSON, including what DynamoDB refuses. */
const openObject = fc.oneof(
  { weight: 24, arbitrary: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), plainJson, { maxKeys: 4 }) },
  {
    weight: 2,
    arbitrary: fc.dictionary(
      fc.oneof({ weight: 12, arbitrary: fc.string({ maxLength: 8 }) }, { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', '') }),
      fc.jsonValue({ maxDepth: 3 }),
      { maxKeys: 4 },
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 20, max: 60 }).map((d) => ({ nested: deepObject(d) })) },
  { weight: 2, arbitrary: awkwardNumber.map((n) => ({ n })) },
  { weight: 1, arbitrary: fc.constantFrom({ '': 1 }, { a: { '': 'x' } }, { a: [[[]]] }, { s: '' }, { a: [] }, { a: {} }, { a: null }, { a: [null, 1, 'x', true] }) },
);

const appMetadata = fc.oneof(
  { weight: 6, arbitrary: fc.uniqueArray(fc.record({ key: text(255), value: freeText(1024) }), { selector: (e) => e.key, maxLength: 4 }) },
  { weight: 1, arbitrary: arr(obj({ key: text(255), value: freeText(1024) }, { required: ['key', 'value'], rarity: 3 })) },
  { weight: 1, arbitrary: fc.constantFrom([{ key: 'a', value: '1' }, { key: 'a', value: '2' }], [], [{ key: '__proto__', value: '' }]) },
);

function clientFields(ids: IdPools): Record<string, fc.Arbitrary<unknown>> {
  const urlList = fc.oneof({ weight: 12, arbitrary: fc.array(goodUrl, { maxLength: 3 }) }, { weight: 1, arbitrary: arr(url) });
  return {
    client_name: text(128),
    client_type: fc.constantFrom(...CLIENT_TYPES),
    client_description: fc.oneof({ weight: 4, arbitrary: freeText(1024) }, { weight: 1, arbitrary: fc.constant(null) }),
    client_metadata: obj({
      grant_types: fc.oneof(fc.subarray([...GRANT_TYPES]), fc.constant(['client_credentials', 'client_credentials']), arr(fc.constantFrom(...GRANT_TYPES, 'code'))),
      urls: obj({ redirect_uris: urlList, post_logout_redirect_uris: urlList, allowed_origins: urlList, web_origins: urlList, other: plainJson }),
      refresh_token: obj({ expiration_enabled: fc.boolean(), expiration_lifetime: edge(fc.integer({ min: 60, max: 31_536_000 }), 59, 31_536_001, 60.5) }),
      id_token: obj({ expiration_lifetime: edge(fc.integer({ min: 60, max: 2_592_000 }), 0, 2_592_001) }),
      oauth: openObject,
      saml: openObject,
      wsfed: openObject,
    }),
    app_metadata: appMetadata,
    is_public: fc.boolean(),
    is_first_party: fc.boolean(),
    is_global: fc.boolean(),
    // Mostly the request's own tenant: another one is refused in single-tenant mode.
    tenant_id: fc.oneof({ weight: 4, arbitrary: fc.constant(DEFAULT_TENANT_ID) }, { weight: 1, arbitrary: ids.tenant }),
    client_secret_expires_at: fc.oneof(isoTimestamp, fc.constant(null)),
  };
}

/** Spec §4.3's Client bodies (client-body-schemas.ts, client-metadata-schema.ts). */
export const createClientBody = (ids: IdPools) => obj(clientFields(ids), { required: ['client_name'], extraNames: ['resources', 'resource_name'], rarity: 4 });
export function updateClientBody(ids: IdPools): fc.Arbitrary<unknown> {
  const { client_type: _notUpdatable, ...fields } = clientFields(ids);
  return obj(fields, { extraNames: ['client_type', 'client_secret'], rarity: 4 });
}

/** HS256 with a secret or another algorithm without one, mostly; any mix sometimes (400s). */
const signing = fc.oneof(
  { weight: 3, arbitrary: fc.record({ signing_algorithm: fc.constantFrom('ES256', 'RS256') }, { requiredKeys: [] }) },
  {
    weight: 2,
    arbitrary: fc.record({
      signing_algorithm: fc.constant('HS256'),
      signing_secret: fc.oneof(fc.string({ minLength: 32, maxLength: 48 }), fc.string({ unit: 'binary', minLength: 9, maxLength: 40 }), fc.constantFrom('x'.repeat(1024), 'x'.repeat(31), '\ud800'.repeat(40))),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ signing_algorithm: fc.constantFrom('ES256', 'RS256', 'HS256', 'none'), signing_secret: fc.string({ maxLength: 40 }) }, { requiredKeys: [] }),
  },
);

function resourceMetadata(ids: IdPools): fc.Arbitrary<unknown> {
  const fields = {
    identifier_url: fc.oneof(
      { weight: 6, arbitrary: fc.uuid().map((u) => `https://${u}.example/api`) },
      { weight: 1, arbitrary: fc.constantFrom(...ids.identifierUrls) },
      { weight: 1, arbitrary: url },
      // Long ones: the URL is part of two keys, whose limits count UTF-8 bytes.
      { weight: 2, arbitrary: fc.tuple(fc.uuid(), fc.constantFrom('a', 'é', '€', '😀'), fc.integer({ min: 900, max: 1000 })).map(([u, c, n]) => `urn:${u}:${c.repeat(n)}`.slice(0, 1000)) },
    ),
    token_lifetime: edge(fc.integer({ min: 60, max: 86_400 }), 59, 86_401, 3600.5),
    rbac_enabled: fc.boolean(),
    scopes_added: fc.boolean(),
    skip_consent_for_first_party: fc.boolean(),
    is_system: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  };
  return fc.tuple(obj(fields), fc.option(signing, { freq: 2 })).map(([m, sign]) =>
    sign && m !== null && typeof m === 'object' && !Array.isArray(m) ? { ...m, ...sign } : m,
  );
}

/** Spec §4.3's Resource bodies (resource-bodies.ts, resource-fields.ts). */
function resourceFields(ids: IdPools): Record<string, fc.Arbitrary<unknown>> {
  return {
    resource_type: fc.oneof({ weight: 4, arbitrary: fc.constant('api') }, { weight: 1, arbitrary: text(64) }),
    resource_name: text(200),
    resource_description: freeText(1000),
    resource_metadata: resourceMetadata(ids),
    app_metadata: appMetadata,
  };
}
export const createResourceBody = (ids: IdPools) => obj(resourceFields(ids), { required: ['resource_type', 'resource_name'], extraNames: ['scopes', 'client_name', 'tenant_id'], rarity: 4 });
export const updateResourceBody = (ids: IdPools) => obj(resourceFields(ids), { extraNames: ['scopes', 'client_name', 'tenant_id'], rarity: 4 });

const scopeName = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[\x21\x23-\x5B\x5D-\x7E]{1,24}$/) },
  { weight: 2, arbitrary: fc.constantFrom('read', 'write', 'read:clients') },
  { weight: 1, arbitrary: fc.constantFrom('a b', '"q"', 'back\\slash', 'é', '', 'x'.repeat(255), 'x'.repeat(256), '__proto__', 'constructor') },
);
/** `{scope_name, scope_description}` (scope-bodies.ts). */
export const createScopeBody = () => obj({ scope_name: scopeName, scope_description: freeText(500) }, { required: ['scope_name'], extraNames: ['scopes'], rarity: 4 });
export const updateScopeBody = () => obj({ scope_name: scopeName, scope_description: freeText(500) }, { extraNames: ['scopes'], rarity: 4 });

export interface IdPools {
  client: fc.Arbitrary<string>;
  resource: fc.Arbitrary<string>;
  scope: fc.Arbitrary<string>;
  tenant: fc.Arbitrary<string>;
  /** Any id of any kind: link bodies name the wrong kind too. */
  any: fc.Arbitrary<string>;
  identifierUrls: string[];
}

const notUuid = fc.oneof(
  fc.constantFrom('', ' ', 'not-a-uuid', '%E0%A4%A', '%00', '%2F', '..', '../clients', '__proto__', 'constructor', 'null', '0', '\u0000', '\ud800', 'é'),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.uuid().map((u) => `${u}\n`),
  fc.uuid().map((u) => ` ${u}`),
  fc.uuid().map((u) => `${u}%20`),
  fc.uuid().map((u) => u.replaceAll('-', '')),
  fc.uuid().map((u) => `{${u}}`),
  hugeString(3_000),
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

export function idPools(world: World, seeds: Seeds): IdPools {
  const clients = [seeds.clientId, seeds.publicClientId, world.defaultClientId, seeds.tenantClientId];
  const resources = [seeds.resourceId, seeds.freeResourceId, world.systemResourceId];
  const scopes = [seeds.scopeId, seeds.otherScopeId, world.systemScopeId];
  const tenants = [DEFAULT_TENANT_ID, world.otherTenantId];
  // Mostly existing records of the right kind (the first: the seed made for this route), so the
  // write paths run for real.
  const pool = (existing: string[]) =>
    fc.oneof(
      { weight: 5, arbitrary: fc.constant(existing[0]!) },
      { weight: 3, arbitrary: fc.constantFrom(...existing) },
      { weight: 2, arbitrary: fc.uuid({ version: [4, 7] }) },
      { weight: 1, arbitrary: fc.constantFrom(...clients, ...resources, ...scopes) },
      { weight: 1, arbitrary: notUuid },
    );
  return {
    client: pool(clients),
    resource: pool(resources),
    scope: pool(scopes),
    tenant: pool(tenants),
    any: fc.oneof(fc.constantFrom(...clients, ...resources, ...scopes), fc.uuid(), notUuid),
    identifierUrls: [world.single.config.managementAudience, 'https://api.example/'],
  };
}

const handlerName = (route: Route) => route.handler.split('/').pop()!;

/** Body arbitrary by handler module: the schema's own fields, or undefined for routes without a body. */
/** Mostly a link body that fits the seeds (so the link writes succeed or meet their own 404/409), else any. */
const fitting = (fit: unknown[], any: fc.Arbitrary<unknown>) => fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...fit) }, { weight: 3, arbitrary: any });

export function bodyFields(route: Route, ids: IdPools, seeds: Seeds): fc.Arbitrary<unknown> | undefined {
  const { resourceId, freeResourceId, scopeId, otherScopeId, clientId } = seeds;
  const permission = (scopes: string[]) => ({ permissions: [{ resource_id: resourceId, scopes }] });
  switch (handlerName(route)) {
    case 'create-client':
      return createClientBody(ids);
    case 'update-client':
      return updateClientBody(ids);
    case 'authorize-client-resources':
    case 'revoke-client-resources':
      return fitting(
        [{ resources: [freeResourceId] }, { resources: [resourceId] }, { resources: [freeResourceId, resourceId] }],
        obj({ resources: arr(ids.resource) }, { required: ['resources'], extraNames: ['clients'], rarity: 4 }),
      );
    case 'grant-client-permissions':
    case 'revoke-client-permissions':
      return fitting(
        [permission([scopeId]), permission([otherScopeId]), permission([scopeId, otherScopeId]), permission([scopeId, scopeId])],
        obj({ permissions: arr(obj({ resource_id: ids.resource, scopes: arr(ids.scope) }, { required: ['resource_id', 'scopes'] })) }, { required: ['permissions'], extraNames: ['resources'], rarity: 4 }),
      );
    case 'create-resource':
      return createResourceBody(ids);
    case 'update-resource':
      return updateResourceBody(ids);
    case 'create-resource-scope':
      return createScopeBody();
    case 'update-resource-scope':
      return updateScopeBody();
    case 'authorize-resource-clients':
    case 'revoke-resource-clients':
      return fitting([{ clients: [clientId] }, { clients: [clientId, seeds.publicClientId] }], obj({ clients: arr(ids.client) }, { required: ['clients'], extraNames: ['resources'], rarity: 4 }));
    default:
      return undefined;
  }
}

interface BodyCase {
  body: string | undefined;
  contentType: string | undefined;
  base64?: boolean;
}

/** JSON (with raw-token placeholders put in), form bodies, text, and oversized or empty bodies. */
export function bodies(fields: fc.Arbitrary<unknown> | undefined): fc.Arbitrary<BodyCase> {
  const anyFields = fields ?? fc.oneof(fc.jsonValue({ maxDepth: 2 }), junk);
  const json = fc.tuple(anyFields, fc.constantFrom(...RAW_TOKENS)).map(([f, raw]) => (JSON.stringify(f) ?? 'null').replaceAll(JSON.stringify(RAW), raw));
  const form = anyFields.map((f) => {
    const p = new URLSearchParams();
    if (f && typeof f === 'object') for (const [k, v] of Object.entries(f)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, typeof x === 'string' ? x : (JSON.stringify(x) ?? ''));
    return p.toString();
  });
  const text = fc.oneof(
    fc.string(),
    fc.constantFrom('{', '}', 'null', '[]', '"x"', '1e999', 'true', '{"a":', '\ufeff{}', '{"client_name":"a","client_name":"b"}', '[{}]', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}'),
    // API.md §8: duplicate member names (also escaped spellings and nested), U+FFFD (how API Gateway passes invalid UTF-8 on).
    fc.constantFrom('{"client_name":"a","client\\u005fname":"b"}', '{"a":{"b":1,"b":2}}', '[{"x":1},{"x":1,"x":2}]', '{"k\\"":1,"k\\"":2}', '{"client_name":"\uFFFD"}'),
    fc.integer({ min: 500, max: 3_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    fc.integer({ min: 500, max: 3_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  );
  const jsonTypes = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/vnd.api+json', 'application/merge-patch+json');
  const otherTypes = fc.constantFrom('application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', '', 'application/xml', 'application/json;;', 'application/jsonx');
  const anyType = fc.oneof(jsonTypes, otherTypes, fc.constant(undefined), fc.string());
  const odd = [
    { weight: 2, arbitrary: fc.record({ body: json, contentType: anyType }) },
    { weight: 2, arbitrary: fc.record({ body: form, contentType: fc.constant('application/x-www-form-urlencoded') }) },
    { weight: 2, arbitrary: fc.record({ body: text, contentType: anyType }) },
    { weight: 1, arbitrary: fc.record({ body: json.map((s) => Buffer.from(s).toString('base64')), contentType: jsonTypes, base64: fc.constant(true) }) },
    { weight: 1, arbitrary: fc.record({ body: fc.constantFrom('!!!not base64', ''), contentType: jsonTypes, base64: fc.constant(true) }) },
    // API.md §8: invalid UTF-8 (a lone continuation byte, an overlong '/', a truncated sequence), base64 as binary media types deliver it.
    {
      weight: 1,
      arbitrary: fc.record({
        body: fc.constantFrom(...[[0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xff]].map((b) => Buffer.concat([Buffer.from('{"client_name":"'), Buffer.from(b), Buffer.from('"}')]).toString('base64'))),
        contentType: jsonTypes,
        base64: fc.constant(true),
      }),
    },
    { weight: 1, arbitrary: fc.record({ body: fc.constant(`{"client_name":"${'x'.repeat(70_000)}"}`), contentType: jsonTypes }) },
  ];
  const none = fc.record({ body: fc.constantFrom(undefined, ''), contentType: fc.oneof(fc.constant(undefined), anyType) });
  // Routes without a body mostly get none: their fuzzing is in the path, query and headers.
  if (!fields) return fc.oneof({ weight: 20, arbitrary: none }, ...odd) as fc.Arbitrary<BodyCase>;
  return fc.oneof(
    { weight: 60, arbitrary: fc.record({ body: json, contentType: jsonTypes }) },
    { weight: 1, arbitrary: none },
    ...odd,
  ) as fc.Arbitrary<BodyCase>;
}

const COLLECTIONS: Record<string, CollectionSpec> = {
  'list-clients': clientsCollection,
  'create-client': clientsCollection,
  'get-client': clientsCollection,
  'update-client': clientsCollection,
  'change-client-secret': clientsCollection,
  'list-client-resources': clientResourcesCollection,
  'list-client-permissions': clientPermissionsCollection,
  'list-resources': resourcesCollection,
  'create-resource': resourcesCollection,
  'get-resource': resourcesCollection,
  'update-resource': resourcesCollection,
  'list-resource-scopes': scopesCollection,
  'create-resource-scope': scopesCollection,
  'get-resource-scope': scopesCollection,
  'update-resource-scope': scopesCollection,
  'list-resource-clients': resourceClientsCollection,
};
const ALL_ATTRIBUTES = [...new Set(Object.values(COLLECTIONS).flatMap((s) => [...s.attributes.keys(), ...s.children]))];
const LIST_PARAMS = ['fields', 'expand', 'q', 'sort', 'offset', 'limit', 'total_count', 'cursor'];

/** Valid `q` values by attribute type (docs/lists.md), from which the fuzzer picks. */
function typedValue(type: string, ids: IdPools): fc.Arbitrary<string> {
  switch (type) {
    case 'uuid':
      return ids.any;
    case 'boolean':
      return fc.constantFrom('true', 'false', 'null', 'TRUE');
    case 'timestamp':
      return fc.oneof(fc.constantFrom('2025-03-01', '2099-12-31', '0000-01-01', '2025-02-30', 'null'), fc.date({ noInvalidDate: true }).map((d) => d.toISOString()));
    case 'number':
      return fc.oneof(fc.integer().map(String), fc.constantFrom('1e999', 'NaN', '-0'));
    default:
      return fc.oneof(
        fc.string({ maxLength: 10 }).filter((s) => !s.includes(')') && s.trim() !== ''),
        fc.string({ maxLength: 10 }).map((s) => `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`),
        fc.constantFrom('spa', 'null', '""', '"null"', '"\\"', '\ud800'),
      );
  }
}

/**
 * Query strings: valid list parameters for the route's collection (API.md §3) mostly, pieces of
 * the grammar put together anyhow, huge and repeated values (multiValueQueryStringParameters).
 */
export function queries(route: Route, cursors: readonly string[], ids: IdPools): fc.Arbitrary<[string, string][]> {
  const spec = COLLECTIONS[handlerName(route)];
  const attrs = spec ? [...spec.attributes.keys()] : ALL_ATTRIBUTES;
  const fieldNames = spec ? [...attrs, ...spec.children] : ALL_ATTRIBUTES;
  const filterable = spec ? [...spec.attributes].filter(([, a]) => a.filterable) : [];
  const sortable = spec ? attrs.filter((a) => spec.attributes.get(a)!.sortable) : ALL_ATTRIBUTES;

  const term = filterable.length
    ? fc.constantFrom(...filterable).chain(([name, a]) => typedValue(a.type, ids).map((v) => `(${name}=${v})`))
    : fc.constantFrom('(id=x)');
  const valid: Record<string, fc.Arbitrary<string>> = {
    fields: fc.subarray(fieldNames, { minLength: 1, maxLength: 4 }).map((a) => a.join(',')),
    expand: fc.constantFrom('', 'all'),
    q: fc.array(term, { minLength: 1, maxLength: 3 }).chain((t) => fc.constantFrom(' and ', '+AND+', ' and  ').map((sep) => t.join(sep))),
    sort: fc.subarray(sortable, { minLength: 1, maxLength: 3 }).chain((a) => fc.tuple(...a.map((x) => fc.constantFrom(x, `${x}:asc`, `${x}:desc`, `${x} desc`)))).map((a) => a.join(',')),
    offset: fc.integer({ min: 0, max: 30 }).map(String),
    limit: fc.integer({ min: 1, max: 100 }).map(String),
    total_count: fc.constantFrom('true', 'false'),
    cursor: fc.constantFrom(...cursors, ''),
  };

  const piece = fc.oneof(
    fc.constantFrom(...ALL_ATTRIBUTES, 'nope', '__proto__', 'constructor'),
    fc.constantFrom('(', ')', '=', '"', '\\', ' and ', 'AND', ',', ':', ' ', 'asc', 'desc', 'true', 'false', 'null', '2025-03-01', '-1', '0', '100', '1e3', '%', '*'),
    ids.any,
    fc.string({ maxLength: 6 }),
  );
  const grammar = fc.array(piece, { maxLength: 8 }).map((p) => p.join(''));
  const tampered = fc.tuple(fc.constantFrom(...cursors), fc.nat(), fc.constantFrom('A', '_', '.', '')).map(([c, i, ch]) => {
    const at = i % c.length;
    return `${c.slice(0, at)}${ch}${c.slice(at + 1)}`;
  });
  const invalid: Record<string, fc.Arbitrary<string>> = {
    fields: fc.oneof(fc.constantFrom('', ',', 'x', 'id,,id', 'constructor', '__proto__', 'id,id'), grammar),
    expand: fc.oneof(fc.constantFrom('ALL', 'true', 'resources'), grammar),
    q: fc.oneof(grammar, hugeString(2_500), fc.constant(Array.from({ length: 21 }, () => '(id=x)').join(' and '))),
    sort: fc.oneof(fc.constantFrom(':asc', 'id:up', 'id,', 'aggregations', 'client_secret'), grammar),
    offset: fc.oneof(fc.constantFrom('-1', '', '1.5', '1e2', '0x10', ' 1', '99999999999', '+1', '10001', '10000'), grammar),
    limit: fc.oneof(fc.constantFrom('0', '101', '', '1.5', '1e2', 'NaN', '100 ', '007', '-1'), grammar),
    total_count: fc.oneof(fc.constantFrom('TRUE', '1', ''), grammar),
    cursor: fc.oneof(tampered, fc.constantFrom('x', '....', 'eyJhIjoxfQ.eyJhIjoxfQ', '\ud800'), hugeString(2_100), grammar),
  };
  const named = (values: Record<string, fc.Arbitrary<string>>) => fc.constantFrom(...LIST_PARAMS).chain((name) => values[name]!.map((v) => [name, v] as [string, string]));
  const pair = fc.oneof(
    { weight: 6, arbitrary: named(valid) },
    { weight: 2, arbitrary: named(invalid) },
    { weight: 1, arbitrary: fc.tuple(fc.oneof(fc.constantFrom('tenant_id', '__proto__', 'constructor', 'fields[]', 'hasOwnProperty', ''), fc.string()), fc.string()) },
  );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant([] as [string, string][]) },
    { weight: 6, arbitrary: fc.uniqueArray(pair, { selector: (p) => p[0], maxLength: 4 }) },
    // A repeated name: API Gateway's multiValueQueryStringParameters.
    { weight: 1, arbitrary: fc.tuple(pair, pair).map(([a, b]) => [a, [a[0], b[1]] as [string, string]]) },
  );
}

/** Path parameters: existing ids of the right and wrong kind, unknown UUIDs, non-UUIDs. */
export function pathParams(route: Route, ids: IdPools, world: World, seeds: Seeds): fc.Arbitrary<Record<string, string> | null> {
  const names = [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return fc.constant(null);
  const byName: Record<string, fc.Arbitrary<string>> = { client_id: ids.client, resource_id: ids.resource, scope_id: ids.scope };
  const any = fc.record(Object.fromEntries(names.map((n) => [n, byName[n] ?? ids.any])));
  if (!names.includes('scope_id')) return any;
  // A scope is addressed under its resource: independent picks would nearly always be a 404.
  const pairs = [
    { resource_id: seeds.resourceId, scope_id: seeds.scopeId },
    { resource_id: seeds.resourceId, scope_id: seeds.otherScopeId },
    { resource_id: world.systemResourceId, scope_id: world.systemScopeId },
  ];
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pairs) }, { weight: 2, arbitrary: any });
}

/** Authorization and the `tenant_id` header, with header-name case varied. */
export function authHeaders(world: World, seeds: Seeds, ids: IdPools): fc.Arbitrary<Record<string, string>> {
  const auth = fc.oneof(
    { weight: 14, arbitrary: fc.constant(`Bearer ${world.tokens.admin}`) },
    { weight: 3, arbitrary: fc.constant(`Bearer ${seeds.tenantToken}`) },
    { weight: 1, arbitrary: fc.constantFrom(`Bearer ${world.tokens.noScope}`, `Bearer ${world.tokens.otherAudience}`, `bearer  ${world.tokens.admin}`, `Basic ${world.tokens.admin}`) },
    { weight: 1, arbitrary: fc.oneof(fc.string().map((s) => `Bearer ${s}`), fc.constantFrom('Bearer', 'Bearer a.b.c', `Bearer ${world.tokens.admin}x`, '', `Bearer ${'a'.repeat(10_000)}`)) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const tenant = fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: ids.tenant }, { weight: 1, arbitrary: fc.string() });
  return fc.tuple(auth, tenant, fc.boolean()).map(([a, t, lower]) => {
    const h: Record<string, string> = {};
    if (a !== undefined) h[lower ? 'authorization' : 'Authorization'] = a;
    if (t !== undefined) h[lower ? 'tenant_id' : 'Tenant_Id'] = t;
    return h;
  });
}

/** Everything for one route. */
export function calls(world: World, route: Route, seeds: Seeds): fc.Arbitrary<Call> {
  const ids = idPools(world, seeds);
  return fc
    .record({
      multiTenant: fc.boolean(),
      pathParameters: pathParams(route, ids, world, seeds),
      auth: authHeaders(world, seeds, ids),
      query: queries(route, world.cursors, ids),
      body: bodies(bodyFields(route, ids, seeds)),
      lowerContentType: fc.boolean(),
      // API.md §8: sometimes a second Authorization header (API Gateway keeps both in multiValueHeaders).
      secondAuthorization: fc.oneof({ weight: 20, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(`Bearer ${world.tokens.admin}`, `Bearer ${world.tokens.noScope}`, 'Basic eDp5') }),
    })
    .map(({ multiTenant, pathParameters, auth, query, body, lowerContentType, secondAuthorization }) => {
      const headers = { ...auth };
      if (body.contentType !== undefined) headers[lowerContentType ? 'content-type' : 'Content-Type'] = body.contentType;
      const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
      if (secondAuthorization) (multiValueHeaders.Authorization ??= []).push(secondAuthorization);
      const call: Call = { route, multiTenant, pathParameters, headers, query, body: body.body, ...(body.base64 ? { isBase64Encoded: true } : {}), ...(secondAuthorization ? { multiValueHeaders } : {}) };
      // A readable counterexample: tokens by name, long strings clipped.
      const text = describeCall(call, { ...world.tokens, tenant: seeds.tenantToken });
      return Object.assign(call, { [fc.toStringMethod]: () => text, toString: () => text });
    });
}

/**
 * The fast-check runs of one route: `runs` from a fixed seed (the same inputs every time, so a
 * regression shows at once) plus `varying` from a fresh seed (new inputs every run; a failure
 * prints its seed). `FUZZ_SEED=<seed>` replays a printed seed (with `-t '<route>'`),
 * `FUZZ_SEED=random` explores; `FUZZ_RUNS` scales the runs for a long local hunt.
 */
export function fuzzParams(runs: number, varying: number, salt: number): fc.Parameters<unknown>[] {
  const env = process.env.FUZZ_SEED;
  const n = Number(process.env.FUZZ_RUNS ?? '') || runs;
  if (env === 'random') return [{ numRuns: n }];
  if (env) return [{ numRuns: n, seed: Number(env) }];
  return [{ numRuns: n, seed: 20_260_301 + salt }, { numRuns: varying }];
}
