import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientsFixture, clientsFixture, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';

let fx: ClientsFixture;
let existing: Record<string, any>;
let publicClient: Record<string, any>;
beforeAll(async () => {
  fx = await clientsFixture();
  existing = await fx.createClient();
  publicClient = await fx.createClient({ is_public: true });
});
afterAll(async () => fx?.stop());

const uuid = (i: number) => `019b0000-0000-7000-8000-${String(i).padStart(12, '0')}`;
const past = new Date(Date.now() - 60_000).toISOString();

/** [what, body, the field the 400 message must start with] */
const CREATE_CASES: [string, unknown, string][] = [
  ['client_name missing', {}, 'body.client_name'],
  ['client_name empty', { client_name: '' }, 'body.client_name'],
  ['client_name blank', { client_name: '   ' }, 'body.client_name'],
  ['client_name too long', { client_name: 'x'.repeat(129) }, 'body.client_name'],
  ['client_name not a string', { client_name: 5 }, 'body.client_name'],
  ['client_type unknown', { client_name: 'a', client_type: 'single-page-app' }, 'body.client_type'],
  ['client_description too long', { client_name: 'a', client_description: 'x'.repeat(1025) }, 'body.client_description'],
  ['client_description not a string', { client_name: 'a', client_description: 5 }, 'body.client_description'],
  ['is_public not a boolean', { client_name: 'a', is_public: 'true' }, 'body.is_public'],
  ['is_first_party not a boolean', { client_name: 'a', is_first_party: 1 }, 'body.is_first_party'],
  ['is_global not a boolean', { client_name: 'a', is_global: 'yes' }, 'body.is_global'],
  ['tenant_id not a UUID', { client_name: 'a', tenant_id: 'default' }, 'body.tenant_id'],
  ['tenant_id other than the default in single-tenant mode', { client_name: 'a', tenant_id: UNKNOWN_ID }, 'body.tenant_id'],
  ['an unknown field', { client_name: 'a', is_globl: false }, 'body.is_globl'],
  ['client_secret chosen by the caller', { client_name: 'a', client_secret: 'mine' }, 'body.client_secret'],
  ['client_metadata not an object', { client_name: 'a', client_metadata: 'x' }, 'body.client_metadata'],
  ['client_metadata unknown field', { client_name: 'a', client_metadata: { scopes: [] } }, 'body.client_metadata.scopes'],
  [
    'grant_types not an array',
    { client_name: 'a', client_metadata: { grant_types: 'client_credentials' } },
    'body.client_metadata.grant_types',
  ],
  ['grant_types unknown grant', { client_name: 'a', client_metadata: { grant_types: ['magic'] } }, 'body.client_metadata.grant_types.0'],
  ['urls not an object', { client_name: 'a', client_metadata: { urls: [] } }, 'body.client_metadata.urls'],
  [
    'redirect_uris relative',
    { client_name: 'a', client_metadata: { urls: { redirect_uris: ['/cb'] } } },
    'body.client_metadata.urls.redirect_uris.0',
  ],
  [
    'redirect_uris with a fragment',
    { client_name: 'a', client_metadata: { urls: { redirect_uris: ['https://a.example.com/cb#x'] } } },
    'body.client_metadata.urls.redirect_uris.0',
  ],
  [
    'allowed_origins not URLs',
    { client_name: 'a', client_metadata: { urls: { allowed_origins: [5] } } },
    'body.client_metadata.urls.allowed_origins.0',
  ],
  [
    'refresh_token lifetime too short',
    { client_name: 'a', client_metadata: { refresh_token: { expiration_lifetime: 10 } } },
    'body.client_metadata.refresh_token.expiration_lifetime',
  ],
  [
    'refresh_token enabled not boolean',
    { client_name: 'a', client_metadata: { refresh_token: { expiration_enabled: 'yes' } } },
    'body.client_metadata.refresh_token.expiration_enabled',
  ],
  [
    'refresh_token unknown field',
    { client_name: 'a', client_metadata: { refresh_token: { rotation: true } } },
    'body.client_metadata.refresh_token.rotation',
  ],
  [
    'id_token lifetime fractional',
    { client_name: 'a', client_metadata: { id_token: { expiration_lifetime: 600.5 } } },
    'body.client_metadata.id_token.expiration_lifetime',
  ],
  [
    'id_token lifetime too long',
    { client_name: 'a', client_metadata: { id_token: { expiration_lifetime: 9_999_999 } } },
    'body.client_metadata.id_token.expiration_lifetime',
  ],
  ['oauth not an object', { client_name: 'a', client_metadata: { oauth: [] } }, 'body.client_metadata.oauth'],
  ['saml too big', { client_name: 'a', client_metadata: { saml: { x: 'y'.repeat(9000) } } }, 'body.client_metadata.saml'],
  ['wsfed not an object', { client_name: 'a', client_metadata: { wsfed: 'x' } }, 'body.client_metadata.wsfed'],
  ['app_metadata not an array', { client_name: 'a', app_metadata: { team: 'x' } }, 'body.app_metadata'],
  ['app_metadata entry without value', { client_name: 'a', app_metadata: [{ key: 'a' }] }, 'body.app_metadata.0.value'],
  ['app_metadata blank key', { client_name: 'a', app_metadata: [{ key: ' ', value: 'x' }] }, 'body.app_metadata.0.key'],
  ['app_metadata value not a string', { client_name: 'a', app_metadata: [{ key: 'a', value: 1 }] }, 'body.app_metadata.0.value'],
  ['app_metadata value too long', { client_name: 'a', app_metadata: [{ key: 'a', value: 'x'.repeat(1025) }] }, 'body.app_metadata.0.value'],
  ['app_metadata extra field', { client_name: 'a', app_metadata: [{ key: 'a', value: 'b', type: 's' }] }, 'body.app_metadata.0.type'],
  [
    'app_metadata duplicate keys',
    {
      client_name: 'a',
      app_metadata: [
        { key: 'a', value: '1' },
        { key: 'a', value: '2' },
      ],
    },
    'body.app_metadata',
  ],
  [
    'app_metadata too many entries',
    { client_name: 'a', app_metadata: Array.from({ length: 51 }, (_, i) => ({ key: `k${i}`, value: '' })) },
    'body.app_metadata',
  ],
  ['client_secret_expires_at not a timestamp', { client_name: 'a', client_secret_expires_at: 'tomorrow' }, 'body.client_secret_expires_at'],
  [
    'client_secret_expires_at without a zone',
    { client_name: 'a', client_secret_expires_at: '2099-01-01T00:00:00' },
    'body.client_secret_expires_at',
  ],
  [
    'client_secret_expires_at on a day that does not exist',
    { client_name: 'a', client_secret_expires_at: '2099-02-31T00:00:00Z' },
    'body.client_secret_expires_at',
  ],
  [
    'client_secret_expires_at on Feb 29 of a common year',
    { client_name: 'a', client_secret_expires_at: '2099-02-29T00:00:00Z' },
    'body.client_secret_expires_at',
  ],
  ['client_secret_expires_at in the past', { client_name: 'a', client_secret_expires_at: past }, 'body.client_secret_expires_at'],
  [
    'client_secret_expires_at on a public client',
    { client_name: 'a', is_public: true, client_secret_expires_at: '2099-01-01T00:00:00Z' },
    'body.client_secret_expires_at',
  ],
  [
    'a public client with client_credentials',
    { client_name: 'a', is_public: true, client_metadata: { grant_types: ['client_credentials'] } },
    'body.client_metadata.grant_types',
  ],
  ['a JSON array as body', [], 'body'],
];

describe('POST /clients: 400 per invalid field, naming it (docs/contract.md §2)', () => {
  it.each(CREATE_CASES)('%s → 400 %s', async (_what, body, field) => {
    const res = await fx.call('POST', '/clients', { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.message.startsWith(`${field}: `), res.body.message).toBe(true);
  });

  it('Feb 29 of a leap year is a real date: 201, stored as given', async () => {
    const res = await fx.call('POST', '/clients', { body: { client_name: 'leap', client_secret_expires_at: '2096-02-29T12:00:00+01:00' } });
    expect(res.status).toBe(201);
    expect(res.body.client_secret_expires_at).toBe('2096-02-29T11:00:00.000Z');
  });

  it('a body that is not JSON → 400, and nothing is created', async () => {
    const before = (await fx.call('GET', '/clients?total_count=true&limit=1')).body.total_count;
    const res = await fx.call('POST', '/clients', { body: '{"client_name": ' });
    expect(res.status).toBe(400);
    expect((await fx.call('GET', '/clients?total_count=true&limit=1')).body.total_count).toBe(before);
  });
});

/** `{"a":{"a":...}}`, `levels` objects deep. */
const nested = (levels: number): unknown => Array.from({ length: levels }).reduce<unknown>((x) => ({ a: x }), 1);

/**
 * Found by test/management/clients/fuzz.test.ts: the open objects of client_metadata are
 * stored as DynamoDB maps, and what DynamoDB refuses (or the SDK cannot marshal) was a 500.
 * [what, raw JSON body, the field the 400 must name]
 */
const UNSTORABLE_CASES: [string, string, string][] = [
  ['an empty member name in urls', '{"client_name":"a","client_metadata":{"urls":{"":"x"}}}', 'body.client_metadata.urls'],
  ['an empty member name nested in oauth', '{"client_name":"a","client_metadata":{"oauth":{"x":{"":1}}}}', 'body.client_metadata.oauth'],
  ['a number beyond 2^53 in saml', '{"client_name":"a","client_metadata":{"saml":{"n":1e20}}}', 'body.client_metadata.saml'],
  ['1e999 (Infinity) in wsfed', '{"client_name":"a","client_metadata":{"wsfed":{"n":1e999}}}', 'body.client_metadata.wsfed'],
  ['a number below 1e-130 in an urls member', '{"client_name":"a","client_metadata":{"urls":{"n":[1e-300]}}}', 'body.client_metadata.urls'],
  [
    '31 levels of nesting in oauth',
    JSON.stringify({ client_name: 'a', client_metadata: { oauth: nested(31) } }),
    'body.client_metadata.oauth',
  ],
  // Found by the schema-derived fuzzing: a lone surrogate cannot be written as UTF-8, DynamoDB failed the map key.
  [
    'a lone surrogate as a member name in wsfed',
    '{"client_name":"a","client_metadata":{"wsfed":{"\\udfff":{}}}}',
    'body.client_metadata.wsfed',
  ],
  [
    'a lone surrogate in a member name nested in urls',
    '{"client_name":"a","client_metadata":{"urls":{"x":{"a\\ud800b":1}}}}',
    'body.client_metadata.urls',
  ],
];

describe('client_metadata DynamoDB cannot store is a 400, not a 500', () => {
  it.each(UNSTORABLE_CASES)('POST /clients with %s → 400 %s', async (_what, body, field) => {
    const res = await fx.call('POST', '/clients', { body });
    expect(res.status, res.body.message).toBe(400);
    expect(res.body.message.startsWith(`${field}: `), res.body.message).toBe(true);
  });

  it.each(UNSTORABLE_CASES)('PATCH /clients/{id} with %s → 400 %s, nothing changed', async (_what, body, field) => {
    const patch = JSON.stringify(JSON.parse(body.replace('1e999', '"inf"')).client_metadata).replace('"inf"', '1e999');
    const res = await fx.call('PATCH', `/clients/${existing.id}`, { body: `{"client_metadata":${patch}}` });
    expect(res.status, res.body.message).toBe(400);
    expect(res.body.message.startsWith(`${field}: `), res.body.message).toBe(true);
    expect((await fx.call('GET', `/clients/${existing.id}`)).body).toEqual(existing);
  });

  it('what DynamoDB can store still round-trips: 16 levels, ±(2^53 - 1), 1e-130, 0', async () => {
    const oauth = { deep: nested(15), big: Number.MAX_SAFE_INTEGER, small: -Number.MAX_SAFE_INTEGER, tiny: 1e-130, zero: 0, list: [[1.5]] };
    const created = await fx.createClient({ client_metadata: { oauth } });
    expect((await fx.call('GET', `/clients/${created.id}`)).body.client_metadata.oauth).toEqual(oauth);
  });
});

describe('400 messages say what is wrong', () => {
  it('POST /clients without client_name is "body.client_name: is required", not "must be a JSON object"', async () => {
    const res = await fx.call('POST', '/clients', { body: {} });
    expect(res.body.message).toBe('body.client_name: is required');
  });

  it('a "__proto__" member is named, not called malformed JSON', async () => {
    const res = await fx.call('POST', '/clients', { body: '{"client_name":"a","client_metadata":{"oauth":{"__proto__":{"x":1}}}}' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('body: a member named "__proto__" is not accepted.');
  });

  it('a permission entry without resource_id is "is required"', async () => {
    const res = await fx.call('POST', `/clients/${existing.id}/permissions`, { body: { permissions: [{ scopes: [uuid(2)] }] } });
    expect(res.body.message).toBe('body.permissions.0.resource_id: is required');
  });
});

const UPDATE_CASES: [string, unknown, string][] = [
  ['client_type (create only, spec §4.3)', { client_type: 'spa' }, 'body.client_type'],
  ['client_name empty', { client_name: '' }, 'body.client_name'],
  ['client_name null', { client_name: null }, 'body.client_name'],
  ['is_public null', { is_public: null }, 'body.is_public'],
  ['an unknown field', { name: 'x' }, 'body.name'],
  ['client_metadata unknown field', { client_metadata: { grant: [] } }, 'body.client_metadata.grant'],
  ['grant_types unknown grant', { client_metadata: { grant_types: ['client_credentials', 'saml'] } }, 'body.client_metadata.grant_types.1'],
  ['app_metadata entry not an object', { app_metadata: ['a=b'] }, 'body.app_metadata.0'],
  ['tenant_id not a UUID', { tenant_id: 1 }, 'body.tenant_id'],
  ['client_secret_expires_at in the past', { client_secret_expires_at: past }, 'body.client_secret_expires_at'],
  ['making it public while it keeps client_credentials', { is_public: true }, 'body.client_metadata.grant_types'],
];

describe('PATCH /clients/{id}: 400 per invalid field, nothing changed', () => {
  it.each(UPDATE_CASES)('%s → 400 %s', async (_what, body, field) => {
    const res = await fx.call('PATCH', `/clients/${existing.id}`, { body });
    expect(res.status).toBe(400);
    expect(res.body.message.startsWith(`${field}: `), res.body.message).toBe(true);
    const now = await fx.call('GET', `/clients/${existing.id}`);
    expect(now.body).toEqual(existing);
  });

  it('a public client cannot get client_credentials added', async () => {
    const res = await fx.call('PATCH', `/clients/${publicClient.id}`, {
      body: { client_metadata: { grant_types: ['client_credentials'] } },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^body\.client_metadata\.grant_types: /);
  });
});

const LINK_CASES: [string, string, unknown, string][] = [
  ['resources', 'no body', undefined, 'body.resources'],
  ['resources', 'resources missing', {}, 'body.resources'],
  ['resources', 'resources empty', { resources: [] }, 'body.resources'],
  ['resources', 'a resource id not a UUID', { resources: [uuid(1), 'api'] }, 'body.resources.1'],
  ['resources', 'more than 50 ids (docs/contract.md §6)', { resources: Array.from({ length: 51 }, (_, i) => uuid(i)) }, 'body.resources'],
  ['resources', 'an unknown field', { resources: [uuid(1)], clients: [] }, 'body.clients'],
  ['permissions', 'permissions missing', {}, 'body.permissions'],
  ['permissions', 'permissions empty', { permissions: [] }, 'body.permissions'],
  ['permissions', 'permissions not an array', { permissions: { resource_id: uuid(1), scopes: [uuid(2)] } }, 'body.permissions'],
  ['permissions', 'resource_id missing', { permissions: [{ scopes: [uuid(2)] }] }, 'body.permissions.0.resource_id'],
  ['permissions', 'resource_id not a UUID', { permissions: [{ resource_id: 'x', scopes: [uuid(2)] }] }, 'body.permissions.0.resource_id'],
  ['permissions', 'scopes empty', { permissions: [{ resource_id: uuid(1), scopes: [] }] }, 'body.permissions.0.scopes'],
  ['permissions', 'a scope id not a UUID', { permissions: [{ resource_id: uuid(1), scopes: ['read'] }] }, 'body.permissions.0.scopes.0'],
  [
    'permissions',
    'an unknown field in an entry',
    { permissions: [{ resource_id: uuid(1), scopes: [uuid(2)], scope: 'x' }] },
    'body.permissions.0.scope',
  ],
  [
    'permissions',
    'more than 50 scope ids in all',
    {
      permissions: [
        { resource_id: uuid(1), scopes: Array.from({ length: 30 }, (_, i) => uuid(i)) },
        { resource_id: uuid(2), scopes: Array.from({ length: 21 }, (_, i) => uuid(i)) },
      ],
    },
    'body.permissions',
  ],
];

describe('link bodies: 400 per invalid field (POST and DELETE alike)', () => {
  it.each(LINK_CASES)('/%s: %s → 400 %s', async (kind, _what, body, field) => {
    for (const method of ['POST', 'DELETE']) {
      const res = await fx.call(method, `/clients/${existing.id}/${kind}`, body === undefined ? {} : { body });
      expect(res.status, method).toBe(400);
      expect(res.body.message.startsWith(`${field}: `), res.body.message).toBe(true);
    }
  });
});

/** Every route of this area, with the scope the route table asks for (docs/contract.md §6). */
const ROUTES: [string, string, string, unknown?][] = [
  ['GET', '/clients', 'read:clients'],
  ['POST', '/clients', 'create:clients', { client_name: 'x' }],
  ['GET', '/clients/{id}', 'read:clients'],
  ['PATCH', '/clients/{id}', 'update:clients', {}],
  ['PUT', '/clients/{id}', 'update:clients', {}],
  ['DELETE', '/clients/{id}', 'delete:clients'],
  ['POST', '/clients/{id}/secret', 'update:client_keys'],
  ['GET', '/clients/{id}/resources', 'read:clients'],
  ['POST', '/clients/{id}/resources', 'update:clients', { resources: [uuid(1)] }],
  ['DELETE', '/clients/{id}/resources', 'update:clients', { resources: [uuid(1)] }],
  ['GET', '/clients/{id}/permissions', 'read:clients'],
  ['POST', '/clients/{id}/permissions', 'update:clients', { permissions: [{ resource_id: uuid(1), scopes: [uuid(2)] }] }],
  ['DELETE', '/clients/{id}/permissions', 'update:clients', { permissions: [{ resource_id: uuid(1), scopes: [uuid(2)] }] }],
];

describe('401 without or with a bad token, 403 without the scope (docs/contract.md §4)', () => {
  it.each(ROUTES)('%s %s needs a valid token with %s', async (method, template, scope, body) => {
    const path = template.replace('{id}', existing.id);
    const opts = body === undefined ? {} : { body };
    const none = await fx.call(method, path, { ...opts, token: null });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(none.body.code).toBe('unauthorized');

    const bad = await fx.call(method, path, { ...opts, token: `${fx.admin.slice(0, -4)}AAAA` });
    expect(bad.status).toBe(401);

    // A valid token of every OTHER management scope is still refused.
    const others = ['read:clients', 'create:clients', 'update:clients', 'delete:clients', 'update:client_keys', 'read:client_keys'].filter(
      (s) => s !== scope,
    );
    const wrong = await fx.call(method, path, { ...opts, token: await fx.svc.managementToken(others.join(' ')) });
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe('insufficient_scope');
    expect(wrong.headers.get('www-authenticate')).toContain(`scope="${scope}"`);
  });

  it('a token for another audience is 401 (docs/contract.md §4: aud must be the management API)', async () => {
    const api = await fx.createResource(['read']);
    const c = await fx.createClient();
    await fx.call('POST', `/clients/${c.id}/resources`, { body: { resources: [api.id] } });
    const other = (await fx.token(c.id, c.client_secret, api.audience)).body.access_token;
    expect((await fx.call('GET', '/clients', { token: other })).status).toBe(401);
  });
});

describe('404 for an unknown client on every route addressing one', () => {
  it.each(ROUTES.filter(([, p]) => p.includes('{id}')))('%s %s', async (method, template, _scope, body) => {
    const res = await fx.call(method, template.replace('{id}', UNKNOWN_ID), body === undefined ? {} : { body });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'not_found', message: expect.any(String) });
  });
});
