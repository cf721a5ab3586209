import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import fc from 'fast-check';
import type * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '#shared/bootstrap/bootstrap.ts';
import { generateClientSecret } from '#shared/crypto/client-secret.ts';
import type { HttpResponse } from '#shared/http/response.ts';
import type { CollectionSpec } from '#shared/lists/collection-spec.ts';
import {
  clientPermissionsCollection,
  clientResourcesCollection,
  clientsCollection,
  resourceClientsCollection,
  resourcesCollection,
  scopesCollection,
} from '#shared/lists/index.ts';
import { SYSTEM_ACTOR_ID } from '#shared/records/common.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { MANAGEMENT_SCOPES } from '#shared/routes/management-scopes.ts';
import type { Route } from '#shared/routes/route.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { entity } from '#shared/store/core/entity.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import { lambdaContext, proxyEvent } from '../../../infra/local/proxy-event.ts';
import { createTestTable } from '../service/dynamodb.ts';
import { testRuntime } from '../service/test-runtime.ts';
import { arbitraryFromSchema, type Derived, deriveFromSchema, entriesOf, type Hint } from './arbitrary-from-schema.ts';
import { define, formName, hugeString, junk, RAW_TOKENS, toJsonText } from './fuzz-values.ts';

/**
 * Shared machinery of the management fuzz tests (docs/design.md §3.12): one table, bootstrapped, seen
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
  if (!h) handlers.set(module, (h = ((await import(/* @vite-ignore */ `../../../${module}.ts`)) as { handler: Handler }).handler));
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
  /** A user of the default tenant (with a password) and its own management-API token (self routes). */
  userId: string;
  userToken: string;
  /** A role of the default tenant (Roles routes). */
  roleId: string;
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
const routeKey = (r: Route) => `${r.method} ${r.path}`;

const ROUTE_BY_KEY = new Map(ROUTES.map((r) => [routeKey(r), r]));
/** The route table's entry for `METHOD /path`. */
function routeOf(key: string): Route {
  const r = ROUTE_BY_KEY.get(key);
  if (!r) throw new Error(`no route ${key}`);
  return r;
}
const route = (method: string, path: string): Route => routeOf(`${method} ${path}`);

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
  // Written straight into the table as tenants-repository.ts shapes it, before any handler runs.
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
  const call = (
    method: string,
    path: string,
    params: Record<string, string> | null,
    body?: unknown,
    query: [string, string][] = [],
    multiTenant = false,
  ) =>
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
    return single.keys.signJwt(
      'ES256',
      { typ: 'at+jwt' },
      {
        iss: single.config.issuer,
        aud: single.config.managementAudience,
        iat: now,
        nbf: now,
        exp: now + 3600,
        jti: randomUUID(),
        ...claims,
      },
    );
  };
  const tokens = {
    admin,
    noScope: await sign({ sub: defaultClientId, client_id: defaultClientId, scope: 'read:users' }),
    otherAudience: await sign({
      sub: defaultClientId,
      client_id: defaultClientId,
      aud: 'https://elsewhere.example/',
      scope: MANAGEMENT_SCOPES.join(' '),
    }),
  };

  const resources = await ok(call('GET', `${M}/resources`, null, undefined, [['limit', '100']]), 200, 'resources');
  const systemResource = (resources.items as Record<string, any>[]).find((r) => r.resource_metadata?.is_system);
  if (!systemResource) throw new Error('no system resource');
  const scopes = await ok(
    call('GET', `${M}/resources/{resource_id}/scopes`, { resource_id: systemResource.id }, undefined, [['limit', '2']]),
    200,
    'scopes',
  );
  const allScopes = await ok(
    call('GET', `${M}/resources/{resource_id}/scopes`, { resource_id: systemResource.id }, undefined, [['limit', '100']]),
    200,
    'scopes',
  );
  const allSystemScopes = (allScopes.items as { id: string }[]).map((x) => x.id);

  let n = 0;
  const seed = async (): Promise<Seeds> => {
    const i = ++n;
    const client = await ok(
      call('POST', `${M}/clients`, null, { client_name: `seed ${i}`, client_metadata: { grant_types: ['client_credentials'] } }),
      201,
      'seed client',
    );
    const publicClient = await ok(
      call('POST', `${M}/clients`, null, { client_name: `public ${i}`, is_public: true }),
      201,
      'seed public client',
    );
    const mkResource = (name: string) =>
      ok(
        call('POST', `${M}/resources`, null, {
          resource_type: 'api',
          resource_name: name,
          resource_metadata: { identifier_url: `https://${name}-${randomUUID()}.example/` },
        }),
        201,
        'seed resource',
      );
    const resource = await mkResource(`api${i}`);
    const free = await mkResource(`free${i}`);
    const scope = await ok(
      call('POST', `${M}/resources/{resource_id}/scopes`, { resource_id: resource.id }, { scope_name: 'read' }),
      201,
      'seed scope',
    );
    const other = await ok(
      call('POST', `${M}/resources/{resource_id}/scopes`, { resource_id: resource.id }, { scope_name: 'write' }),
      201,
      'seed scope',
    );
    await ok(call('POST', `${M}/clients/{client_id}/resources`, { client_id: client.id }, { resources: [resource.id] }), 204, 'seed link');
    await ok(
      call(
        'POST',
        `${M}/clients/{client_id}/permissions`,
        { client_id: client.id },
        { permissions: [{ resource_id: resource.id, scopes: [scope.id] }] },
      ),
      204,
      'seed permission',
    );
    // Made per route too: a fuzzed DELETE of it must not turn the rest of the run into 401s.
    const tenantClient = await ok(
      call('POST', `${M}/clients`, null, { client_name: `tenant admin ${i}`, is_global: false, tenant_id: otherTenantId }, [], true),
      201,
      'tenant client',
    );
    // Its token's scopes count only while the client holds them (docs/contract.md §8): grant them for real.
    await ok(
      call('POST', `${M}/clients/{client_id}/resources`, { client_id: tenantClient.id }, { resources: [systemResource.id] }),
      204,
      'tenant client link',
    );
    await ok(
      call(
        'POST',
        `${M}/clients/{client_id}/permissions`,
        { client_id: tenantClient.id },
        { permissions: [{ resource_id: systemResource.id, scopes: allSystemScopes }] },
      ),
      204,
      'tenant client permissions',
    );
    const tenantToken = await sign({
      sub: tenantClient.id,
      client_id: tenantClient.id,
      tenant_id: otherTenantId,
      scope: MANAGEMENT_SCOPES.join(' '),
    });
    const user = await ok(
      call('POST', `${M}/users`, null, { email: `fuzz-${i}-${randomUUID()}@example.com`, password: `Fuzz-password-${randomUUID()}` }),
      201,
      'seed user',
    );
    // A user's token (sub = the user, client_id = the Default Client), as the user-token core mints them.
    const userToken = await sign({ sub: user.id, client_id: defaultClientId, scope: 'update:users' });
    const role = await ok(call('POST', `${M}/roles`, null, { role_name: `fuzz-role-${i}-${randomUUID()}` }), 201, 'seed role');
    return {
      userId: user.id,
      userToken,
      roleId: role.id,
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
// The property (docs/design.md §3.12, docs/contract.md §2).

const clip = (s: string, n = 400) => (s.length > n ? `${s.slice(0, n)}...(${s.length} chars)` : s);

/** What a failure prints (also fast-check's counterexample): enough to replay the request by hand. */
export function describeCall(call: Call, tokens?: Record<string, string>): string {
  const names = Object.entries(tokens ?? {}).map(([name, t]) => [t, `<${name} token>`] as const);
  const headers = Object.fromEntries(
    Object.entries(call.headers).map(([k, v]) => [
      k,
      clip(
        names.reduce((acc, [t, name]) => acc.replaceAll(t, name), v),
        120,
      ),
    ]),
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
      what += ` ${String((JSON.parse(res.body) as { message: string }).message)
        .replace(/[{"].*$/, '')
        .slice(0, 60)}`;
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
  // 501 `not_implemented` is an answer to client input too: a recognised but unsupported option (docs/contract.md §2).
  const unsupported = res.statusCode === 501 && /"code":"not_implemented"/.test(res.body);
  if (!unsupported) expect(res.statusCode, why).toBeLessThan(500);
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
// Arbitraries. Bodies come from the route's own schemas (test/support/fuzz/arbitrary-from-schema.ts):
// mostly valid, else one targeted mutation. Path, query and headers come from the route table,
// the collection specs and the world's records.

/**
 * Valid values the schemas cannot know: ids of records that exist (so the writes run for real),
 * the request's own tenant mostly, and what the use-case rules want (`is_system` is read-only,
 * `resource_type` is `api`). By field path or last segment (arbitrary-from-schema.ts).
 */
/** docs/contract.md §8: spellings of one identifier (normalised or refused) and unsafe characters in one. */
const IDENTIFIER_LOOKALIKES = [
  'HTTPS://A.EXAMPLE:443/./x/../api',
  'https://a.example/%7Eapi/%2fx',
  'https://a.example//api',
  'https://user@a.example/',
  'https://a.example/\u0000',
  'https://a.example/\u202Egpj',
  'https://a.example/\tx',
  'https://bücher.example/€',
];

/** Valid values of the Users profile fields whose checks no generic generator meets (Intl, shapes). */
const USER_FIELD_HINTS: Record<string, Hint> = {
  zoneinfo: fc.constantFrom('UTC', 'Europe/Paris', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5'),
  locale: fc.constantFrom('en', 'en-US', 'zh-Hant-TW', 'sr-Latn'),
  birthdate: fc.constantFrom('1990-01-31', '0000-02-29', '1985', '2000-02-29'),
  email: fc.uuid().map((u) => `fz-${u}@example.com`),
  username: fc.uuid().map((u) => `fz.${u.slice(0, 8)}`),
  phone_number: fc.integer({ min: 1_000_000, max: 9_999_999 }).map((n) => `+1415${n}`),
  picture: fc.constantFrom('https://example.com/p.png', 'http://cdn.example/a b'.replace(' ', '%20')),
  website: fc.webUrl(),
};

function bodyHints(ids: IdPools): Record<string, Hint> {
  return {
    ...USER_FIELD_HINTS,
    tenant_id: fc.oneof({ weight: 4, arbitrary: fc.constant(DEFAULT_TENANT_ID) }, { weight: 1, arbitrary: ids.tenant }),
    resource_id: ids.resource,
    'resources[]': ids.resource,
    'clients[]': ids.client,
    'scopes[]': ids.scope,
    'users[]': ids.user,
    'roles[]': ids.role,
    identifier_url: (derived) =>
      fc.oneof(
        { weight: 6, arbitrary: derived },
        { weight: 1, arbitrary: fc.constantFrom(...ids.identifierUrls) },
        { weight: 1, arbitrary: fc.constantFrom(...IDENTIFIER_LOOKALIKES) },
      ),
    is_system: (derived) => fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: derived }),
    resource_type: (derived) => fc.oneof({ weight: 4, arbitrary: fc.constant('api') }, { weight: 1, arbitrary: derived }),
    // A signing secret goes with HS256 only (resource use cases): mostly keep the pair consistent.
    resource_metadata: (derived) => fc.tuple(derived, fc.nat(3)).map(([m, n]) => (n === 0 ? m : pairSigning(m))),
  };
}

function pairSigning(metadata: unknown): unknown {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return metadata;
  const m = { ...(metadata as Record<string, unknown>) };
  if (m.signing_secret !== undefined) m.signing_algorithm = 'HS256';
  else if (m.signing_algorithm === 'HS256') delete m.signing_algorithm;
  return m;
}

export interface IdPools {
  client: fc.Arbitrary<string>;
  resource: fc.Arbitrary<string>;
  scope: fc.Arbitrary<string>;
  tenant: fc.Arbitrary<string>;
  user: fc.Arbitrary<string>;
  role: fc.Arbitrary<string>;
  /** Any id of any kind: link bodies name the wrong kind too. */
  any: fc.Arbitrary<string>;
  identifierUrls: string[];
}

const notUuid = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'not-a-uuid',
    '%E0%A4%A',
    '%00',
    '%2F',
    '..',
    '../clients',
    '__proto__',
    'constructor',
    'null',
    '0',
    '\u0000',
    '\ud800',
    'é',
  ),
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
    user: pool([seeds.userId, world.defaultClientId]),
    role: pool([seeds.roleId, seeds.userId]),
    any: fc.oneof(fc.constantFrom(...clients, ...resources, ...scopes), fc.uuid(), notUuid),
    identifierUrls: [world.single.config.managementAudience, 'https://api.example/'],
  };
}

/**
 * One route's fuzzing, declared in its area's fuzz file: the route and the schemas its handler
 * validates with (imported from the module the handler imports them from). Adding a route to the
 * fuzzers is one such line.
 */
export interface FuzzRoute {
  /** `METHOD /path` as in the route table (shared/routes/). */
  route: string;
  body?: v.GenericSchema;
  query?: v.GenericSchema;
  path?: v.GenericSchema;
  /** The list whose grammar `fields`, `q` and `sort` follow (docs/lists.md). */
  collection?: CollectionSpec;
  /** Valid bodies that fit this route's seed records, sent 2 times in 5 so the writes succeed or meet their own 404/409. */
  fitting?: (seeds: Seeds) => unknown[];
}

/** The body arbitrary of a route: derived from its schema, with the fitting bodies mixed in. */
export function bodyFields(spec: FuzzRoute, ids: IdPools, seeds: Seeds): fc.Arbitrary<unknown> | undefined {
  if (!spec.body) return undefined;
  const derived = arbitraryFromSchema(spec.body, { hints: bodyHints(ids) });
  const fit = spec.fitting?.(seeds) ?? [];
  return fit.length ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...fit) }, { weight: 3, arbitrary: derived }) : derived;
}

interface BodyCase {
  body: string | undefined;
  contentType: string | undefined;
  base64?: boolean;
}

/** JSON (with raw-token placeholders put in), form bodies, text, and oversized or empty bodies. */
export function bodies(fields: fc.Arbitrary<unknown> | undefined): fc.Arbitrary<BodyCase> {
  const anyFields = fields ?? fc.oneof(fc.jsonValue({ maxDepth: 2 }), junk);
  const json = fc.tuple(anyFields, fc.constantFrom(...RAW_TOKENS)).map(([f, raw]) => toJsonText(f, raw));
  const form = anyFields.map((f) => {
    const p = new URLSearchParams();
    if (f && typeof f === 'object')
      for (const [k, v] of Object.entries(f))
        for (const x of Array.isArray(v) ? v : [v]) p.append(formName(k), typeof x === 'string' ? x : (JSON.stringify(x) ?? ''));
    return p.toString();
  });
  const text = fc.oneof(
    fc.string(),
    fc.constantFrom(
      '{',
      '}',
      'null',
      '[]',
      '"x"',
      '1e999',
      'true',
      '{"a":',
      '\ufeff{}',
      '{"client_name":"a","client_name":"b"}',
      '[{}]',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{"x":1}}}',
    ),
    // docs/contract.md §8: duplicate member names (also escaped spellings and nested), U+FFFD (how API Gateway passes invalid UTF-8 on).
    fc.constantFrom(
      '{"client_name":"a","client\\u005fname":"b"}',
      '{"a":{"b":1,"b":2}}',
      '[{"x":1},{"x":1,"x":2}]',
      '{"k\\"":1,"k\\"":2}',
      '{"client_name":"\uFFFD"}',
    ),
    fc.integer({ min: 500, max: 3_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    fc.integer({ min: 500, max: 3_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  );
  const jsonTypes = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/vnd.api+json',
    'application/merge-patch+json',
  );
  const otherTypes = fc.constantFrom(
    'application/x-www-form-urlencoded',
    'text/plain',
    'multipart/form-data; boundary=x',
    '',
    'application/xml',
    'application/json;;',
    'application/jsonx',
  );
  const anyType = fc.oneof(jsonTypes, otherTypes, fc.constant(undefined), fc.string());
  const odd = [
    { weight: 2, arbitrary: fc.record({ body: json, contentType: anyType }) },
    { weight: 2, arbitrary: fc.record({ body: form, contentType: fc.constant('application/x-www-form-urlencoded') }) },
    { weight: 2, arbitrary: fc.record({ body: text, contentType: anyType }) },
    {
      weight: 1,
      arbitrary: fc.record({ body: json.map((s) => Buffer.from(s).toString('base64')), contentType: jsonTypes, base64: fc.constant(true) }),
    },
    { weight: 1, arbitrary: fc.record({ body: fc.constantFrom('!!!not base64', ''), contentType: jsonTypes, base64: fc.constant(true) }) },
    // docs/contract.md §8: invalid UTF-8 (a lone continuation byte, an overlong '/', a truncated sequence), base64 as binary media types deliver it.
    {
      weight: 1,
      arbitrary: fc.record({
        body: fc.constantFrom(
          ...[[0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xff]].map((b) =>
            Buffer.concat([Buffer.from('{"client_name":"'), Buffer.from(b), Buffer.from('"}')]).toString('base64'),
          ),
        ),
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

const COLLECTIONS = [
  clientsCollection,
  clientResourcesCollection,
  clientPermissionsCollection,
  resourcesCollection,
  scopesCollection,
  resourceClientsCollection,
];
const ALL_ATTRIBUTES = [...new Set(COLLECTIONS.flatMap((s) => [...s.attributes.keys(), ...s.children]))];
const LIST_PARAMS = ['fields', 'expand', 'q', 'sort', 'offset', 'limit', 'total_count', 'cursor'];

/** Valid `q` values by attribute type (docs/lists.md), from which the fuzzer picks. */
function typedValue(type: string, ids: IdPools): fc.Arbitrary<string> {
  switch (type) {
    case 'uuid':
      return ids.any;
    case 'boolean':
      return fc.constantFrom('true', 'false', 'null', 'TRUE');
    case 'timestamp':
      return fc.oneof(
        fc.constantFrom('2025-03-01', '2099-12-31', '0000-01-01', '2025-02-30', 'null'),
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      );
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
 * Query strings: valid list parameters for the route's collection (docs/contract.md §3) mostly, pieces of
 * the grammar put together anyhow, huge and repeated values (multiValueQueryStringParameters).
 */
export function queries(route: FuzzRoute, cursors: readonly string[], ids: IdPools): fc.Arbitrary<[string, string][]> {
  const spec = route.collection;
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
    sort: fc
      .subarray(sortable, { minLength: 1, maxLength: 3 })
      .chain((a) => fc.tuple(...a.map((x) => fc.constantFrom(x, `${x}:asc`, `${x}:desc`, `${x} desc`))))
      .map((a) => a.join(',')),
    offset: fc.integer({ min: 0, max: 30 }).map(String),
    limit: fc.integer({ min: 1, max: 100 }).map(String),
    total_count: fc.constantFrom('true', 'false'),
    cursor: fc.constantFrom(...cursors, ''),
  };

  const piece = fc.oneof(
    fc.constantFrom(...ALL_ATTRIBUTES, 'nope', '__proto__', 'constructor'),
    fc.constantFrom(
      '(',
      ')',
      '=',
      '"',
      '\\',
      ' and ',
      'AND',
      ',',
      ':',
      ' ',
      'asc',
      'desc',
      'true',
      'false',
      'null',
      '2025-03-01',
      '-1',
      '0',
      '100',
      '1e3',
      '%',
      '*',
    ),
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
  // The parameters the route's query schema declares, and the list ones everywhere (ignored where not declared).
  const declared = route.query ? entriesOf(route.query) : {};
  const names = [...new Set([...Object.keys(declared), ...LIST_PARAMS])];
  const derived = new Map<string, Derived>();
  const fromSchema = (name: string, half: 'valid' | 'invalid') => {
    let d = derived.get(name);
    if (!d) derived.set(name, (d = deriveFromSchema(declared[name]!)));
    return (d[half] ?? d.invalid).map((x) => (typeof x === 'string' ? x : (JSON.stringify(x) ?? '')));
  };
  const named = (values: Record<string, fc.Arbitrary<string>>, half: 'valid' | 'invalid') =>
    fc.constantFrom(...names).chain((name) => (values[name] ?? fromSchema(name, half)).map((v) => [name, v] as [string, string]));
  const pair = fc.oneof(
    { weight: 6, arbitrary: named(valid, 'valid') },
    { weight: 2, arbitrary: named(invalid, 'invalid') },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.oneof(fc.constantFrom('tenant_id', '__proto__', 'constructor', 'fields[]', 'hasOwnProperty', ''), fc.string()),
        fc.string(),
      ),
    },
  );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant([] as [string, string][]) },
    { weight: 6, arbitrary: fc.uniqueArray(pair, { selector: (p) => p[0], maxLength: 4 }) },
    // A repeated name: API Gateway's multiValueQueryStringParameters.
    { weight: 1, arbitrary: fc.tuple(pair, pair).map(([a, b]) => [a, [a[0], b[1]] as [string, string]]) },
  );
}

/**
 * Path parameters: existing ids of the right and wrong kind, unknown UUIDs, non-UUIDs, and the
 * near misses of the route's path schema (as strings: API Gateway passes nothing else).
 */
export function pathParams(
  spec: FuzzRoute,
  route: Route,
  ids: IdPools,
  world: World,
  seeds: Seeds,
): fc.Arbitrary<Record<string, string> | null> {
  const names = [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return fc.constant(null);
  const byName: Record<string, fc.Arbitrary<string>> = {
    client_id: ids.client,
    resource_id: ids.resource,
    scope_id: ids.scope,
    user_id: ids.user,
    role_id: ids.role,
    tenant_id: ids.tenant,
  };
  const pooled = fc.record(Object.fromEntries(names.map((n) => [n, byName[n] ?? ids.any])));
  const derived = spec.path
    ? arbitraryFromSchema(spec.path, { hints: byName }).map((p) =>
        p !== null && typeof p === 'object' && !Array.isArray(p)
          ? Object.fromEntries(Object.entries(p).map(([k, x]) => [k, typeof x === 'string' ? x : (JSON.stringify(x) ?? '')]))
          : Object.fromEntries(names.map((n) => [n, String(p)])),
      )
    : pooled;
  const any = fc.oneof({ weight: 5, arbitrary: pooled }, { weight: 1, arbitrary: derived });
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
    { weight: 2, arbitrary: fc.constant(`Bearer ${seeds.userToken}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `Bearer ${world.tokens.noScope}`,
        `Bearer ${world.tokens.otherAudience}`,
        `bearer  ${world.tokens.admin}`,
        `Basic ${world.tokens.admin}`,
      ),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string().map((s) => `Bearer ${s}`),
        fc.constantFrom('Bearer', 'Bearer a.b.c', `Bearer ${world.tokens.admin}x`, '', `Bearer ${'a'.repeat(10_000)}`),
      ),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const tenant = fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: ids.tenant },
    { weight: 1, arbitrary: fc.string() },
  );
  return fc.tuple(auth, tenant, fc.boolean()).map(([a, t, lower]) => {
    const h: Record<string, string> = {};
    if (a !== undefined) h[lower ? 'authorization' : 'Authorization'] = a;
    if (t !== undefined) h[lower ? 'tenant_id' : 'Tenant_Id'] = t;
    return h;
  });
}

/** Everything for one route. */
export function calls(world: World, spec: FuzzRoute, seeds: Seeds): fc.Arbitrary<Call> {
  const ids = idPools(world, seeds);
  const route = routeOf(spec.route);
  return fc
    .record({
      multiTenant: fc.boolean(),
      pathParameters: pathParams(spec, route, ids, world, seeds),
      auth: authHeaders(world, seeds, ids),
      query: queries(spec, world.cursors, ids),
      body: bodies(bodyFields(spec, ids, seeds)),
      lowerContentType: fc.boolean(),
      // docs/contract.md §8: sometimes a second Authorization header (API Gateway keeps both in multiValueHeaders).
      secondAuthorization: fc.oneof(
        { weight: 20, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(`Bearer ${world.tokens.admin}`, `Bearer ${world.tokens.noScope}`, 'Basic eDp5') },
      ),
    })
    .map(({ multiTenant, pathParameters, auth, query, body, lowerContentType, secondAuthorization }) => {
      const headers = { ...auth };
      if (body.contentType !== undefined) headers[lowerContentType ? 'content-type' : 'Content-Type'] = body.contentType;
      const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
      if (secondAuthorization) (multiValueHeaders.Authorization ??= []).push(secondAuthorization);
      const call: Call = {
        route,
        multiTenant,
        pathParameters,
        headers,
        query,
        body: body.body,
        ...(body.base64 ? { isBase64Encoded: true } : {}),
        ...(secondAuthorization ? { multiValueHeaders } : {}),
      };
      // A readable counterexample: tokens by name, long strings clipped.
      const text = describeCall(call, { ...world.tokens, tenant: seeds.tenantToken, user: seeds.userToken });
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

/**
 * The fuzz suite of one area of the route table: every route of the area must be declared (a
 * new route without fuzzing fails here), each is fuzzed with fresh seed records, `runs` inputs
 * from a fixed seed and `varying` from a fresh one. `FUZZ_STATS=1` prints what the runs reached.
 */
export function fuzzArea(
  title: string,
  options: { table: string; salt: number; area: (r: Route) => boolean; routes: readonly FuzzRoute[]; runs?: number; varying?: number },
): void {
  const { table, salt, area, routes, runs = 60, varying = 20 } = options;
  let world: World;
  beforeAll(async () => {
    world = await createWorld(table);
  });
  afterAll(printStats);

  describe(title, () => {
    it('every route of the area is declared, with the schemas of its handler', () => {
      expect(routes.map((r) => r.route).sort()).toEqual(ROUTES.filter(area).map(routeKey).sort());
    });
    routes.forEach((spec, i) => {
      it(spec.route, { timeout: 90_000 }, async () => {
        // Fresh records per route: a DELETE fuzzed earlier must not leave this route only 404s.
        const seeds = await world.seed();
        const property = fc.asyncProperty(calls(world, spec, seeds), async (call) => {
          expectClientError(call, await world.invoke(call));
        });
        for (const params of fuzzParams(runs, varying, salt + i)) await fc.assert(property, params);
      });
    });
  });
}
