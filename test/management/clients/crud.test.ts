import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_KEYS, type ClientsFixture, clientsFixture, DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';

let fx: ClientsFixture;
beforeAll(async () => {
  fx = await clientsFixture();
});
afterAll(async () => fx?.stop());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /clients (spec §4.3 create)', () => {
  it('201 with spec §2.2 defaults: confidential, global, regular_web, docs/contract.md §5.1 grants, a 256-bit secret, no-store', async () => {
    const res = await fx.call('POST', '/clients', { body: { client_name: 'Billing backend' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const c = res.body;
    expect(Object.keys(c).sort()).toEqual([...CLIENT_KEYS, 'client_secret'].sort());
    expect(c).toMatchObject({
      client_name: 'Billing backend',
      client_type: 'regular_web',
      is_public: false,
      is_first_party: false,
      is_global: true,
      tenant_id: DEFAULT_TENANT,
      client_secret_expires_at: null,
      app_metadata: [],
      created_by: fx.svc.clientId,
      updated_by: fx.svc.clientId,
    });
    expect(c.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(c.created_at).toMatch(ISO);
    expect(c.updated_at).toBe(c.created_at);
    // docs/design.md §4: 32 random bytes, base64url.
    expect(c.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(c.client_metadata).toEqual({
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      urls: {},
      refresh_token: { expiration_enabled: false, expiration_lifetime: 2_592_000 },
      id_token: { expiration_lifetime: 36_000 },
      oauth: {},
      saml: {},
      wsfed: {},
    });
    // spec §2.4
    expect(c.aggregations).toEqual({
      id: c.id,
      client_id: c.id,
      resources: 0,
      permissions: 0,
      created_by: c.created_by,
      created_at: c.created_at,
      updated_by: c.updated_by,
      updated_at: c.updated_at,
    });
  });

  it('keeps every given field; nested metadata objects are filled from the defaults', async () => {
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const c = await fx.createClient({
      client_name: 'Full',
      client_type: 'native',
      client_description: 'All the fields',
      client_metadata: {
        grant_types: ['authorization_code', 'client_credentials', 'authorization_code'],
        urls: { redirect_uris: ['https://app.example.com/cb'], custom: { a: 1 } },
        refresh_token: { expiration_enabled: true },
        id_token: { expiration_lifetime: 600 },
        oauth: { pkce: true },
        saml: {},
        wsfed: { realm: 'x' },
      },
      app_metadata: [
        { key: 'team', value: 'billing' },
        { key: 'empty', value: '' },
      ],
      is_first_party: true,
      is_global: false,
      tenant_id: DEFAULT_TENANT,
      client_secret_expires_at: expires,
    });
    expect(c).toMatchObject({
      client_name: 'Full',
      client_type: 'native',
      client_description: 'All the fields',
      is_first_party: true,
      is_global: false,
      client_secret_expires_at: expires,
      app_metadata: [
        { key: 'team', value: 'billing' },
        { key: 'empty', value: '' },
      ],
      client_metadata: {
        grant_types: ['authorization_code', 'client_credentials'],
        urls: { redirect_uris: ['https://app.example.com/cb'], custom: { a: 1 } },
        refresh_token: { expiration_enabled: true, expiration_lifetime: 2_592_000 },
        id_token: { expiration_lifetime: 600 },
        oauth: { pkce: true },
        saml: {},
        wsfed: { realm: 'x' },
      },
    });
  });

  it('a public client has no secret (RFC 6749 §2.1), is an spa by default, and gets no client_credentials (docs/contract.md §5.1)', async () => {
    const res = await fx.call('POST', '/clients', { body: { client_name: 'SPA', is_public: true } });
    expect(res.status).toBe(201);
    expect(res.body.client_secret).toBeUndefined();
    expect(res.headers.get('cache-control')).toBeNull();
    expect(res.body).toMatchObject({ is_public: true, client_type: 'spa', client_secret_expires_at: null });
    expect(res.body.client_metadata.grant_types).toEqual(['authorization_code', 'refresh_token']);
  });

  it('honours fields and expand on the response (spec §4.3: create takes fields, expand)', async () => {
    const res = await fx.call('POST', '/clients?fields=id,client_secret,resources&expand=all', { body: { client_name: 'shaped' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['client_secret', 'id', 'resources']);
    expect(res.body.resources).toEqual([]);
  });

  it('the new secret works at /token at once', async () => {
    const api = await fx.createResource(['read']);
    const c = await fx.createClient();
    expect((await fx.call('POST', `/clients/${c.id}/resources`, { body: { resources: [api.id] } })).status).toBe(204);
    const ok = await fx.token(c.id, c.client_secret, api.audience);
    expect(ok.status).toBe(200);
    expect((await fx.token(c.id, 'wrong', api.audience)).status).toBe(401);
  });
});

describe('GET /clients/{client_id}', () => {
  it('200 without the secret unless the token has read:client_keys (docs/design.md §4)', async () => {
    const c = await fx.createClient({ client_description: 'd' });
    const plain = await fx.call('GET', `/clients/${c.id}`, { token: await fx.svc.managementToken('read:clients') });
    expect(plain.status).toBe(200);
    expect(plain.body.client_secret).toBeUndefined();
    expect(plain.headers.get('cache-control')).toBeNull();
    const { client_secret, ...rest } = c;
    expect(plain.body).toEqual(rest);

    const keys = await fx.call('GET', `/clients/${c.id}`, { token: await fx.svc.managementToken('read:clients read:client_keys') });
    expect(keys.body.client_secret).toBe(client_secret);
    expect(keys.headers.get('cache-control')).toBe('no-store');
  });

  it('fields restricts the attributes; expand=all adds resources and permissions; fields=client_secret without the scope shows nothing', async () => {
    const c = await fx.createClient();
    expect((await fx.call('GET', `/clients/${c.id}?fields=id,client_name`)).body).toEqual({ id: c.id, client_name: c.client_name });
    const expanded = await fx.call('GET', `/clients/${c.id}?expand=all`);
    expect(expanded.body).toMatchObject({ resources: [], permissions: [] });
    expect((await fx.call('GET', `/clients/${c.id}`)).body.resources).toBeUndefined();
    const noScope = await fx.call('GET', `/clients/${c.id}?fields=client_secret`, { token: await fx.svc.managementToken('read:clients') });
    expect(noScope.body).toEqual({});
  });

  it('single-tenant mode ignores the tenant_id header (docs/contract.md §4)', async () => {
    const c = await fx.createClient();
    const res = await fx.call('GET', `/clients/${c.id}`, { headers: { tenant_id: UNKNOWN_ID } });
    expect(res.status).toBe(200);
    const made = await fx.call('POST', '/clients', { body: { client_name: 'h' }, headers: { tenant_id: UNKNOWN_ID } });
    expect(made.body.tenant_id).toBe(DEFAULT_TENANT);
  });

  it('404 for an unknown id, 400 for a malformed one', async () => {
    expect((await fx.call('GET', `/clients/${UNKNOWN_ID}`)).body).toMatchObject({ code: 'not_found' });
    const bad = await fx.call('GET', '/clients/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ code: 'invalid_request', message: expect.stringMatching(/^path\.client_id: /) });
  });

  it('400 for bad fields / expand', async () => {
    const c = await fx.createClient();
    expect((await fx.call('GET', `/clients/${c.id}?fields=secret_hash`)).body.message).toMatch(/^query\.fields: /);
    expect((await fx.call('GET', `/clients/${c.id}?expand=true`)).body.message).toMatch(/^query\.expand: /);
  });
});

describe('PATCH / PUT /clients/{client_id} (docs/contract.md §6: merge)', () => {
  it('merges: a field left out keeps its value; nested objects merge, arrays replace', async () => {
    const c = await fx.createClient({
      client_description: 'before',
      client_metadata: { urls: { redirect_uris: ['https://a.example.com/cb'] } },
      app_metadata: [{ key: 'a', value: '1' }],
    });
    const res = await fx.call('PATCH', `/clients/${c.id}`, {
      body: {
        client_name: 'renamed',
        client_metadata: { grant_types: ['client_credentials'], refresh_token: { expiration_lifetime: 3600 } },
        app_metadata: [{ key: 'b', value: '2' }],
      },
      token: await fx.svc.managementToken('update:clients'),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      client_name: 'renamed',
      client_description: 'before',
      app_metadata: [{ key: 'b', value: '2' }],
      client_metadata: {
        grant_types: ['client_credentials'],
        urls: { redirect_uris: ['https://a.example.com/cb'] },
        refresh_token: { expiration_enabled: false, expiration_lifetime: 3600 },
      },
    });
    expect(res.body.client_secret).toBeUndefined();
    expect(res.body.updated_at >= c.updated_at).toBe(true);
    expect((await fx.call('GET', `/clients/${c.id}`, { token: await fx.svc.managementToken('read:clients') })).body).toEqual(res.body);
  });

  it('open client_metadata members merged over PATCHes keep their bound: 400 naming the member, nothing stored', async () => {
    // Each PATCH within the bound could add keys until the item passed DynamoDB's 400 KB limit (a 500).
    const c = await fx.createClient({ client_metadata: { oauth: { a: 'x'.repeat(5000) }, urls: { custom: 'u'.repeat(10_000) } } });
    const token = await fx.svc.managementToken('update:clients');
    for (const [member, body] of [
      ['oauth', { oauth: { b: 'y'.repeat(5000) } }],
      ['urls', { urls: { more: 'v'.repeat(10_000) } }],
    ] as const) {
      const res = await fx.call('PATCH', `/clients/${c.id}`, { body: { client_metadata: body }, token });
      expect(res.status, member).toBe(400);
      expect(res.body.message).toBe(
        `body.client_metadata.${member}: would be more than ${member === 'urls' ? 16384 : 8192} bytes as JSON once merged into the stored value.`,
      );
    }
    const got = await fx.call('GET', `/clients/${c.id}`, { token: await fx.svc.managementToken('read:clients') });
    expect(Object.keys(got.body.client_metadata.oauth)).toEqual(['a']);
    expect(Object.keys(got.body.client_metadata.urls)).toEqual(['custom']);
    expect(got.body.updated_at).toBe(c.updated_at);
    // A merge that stays within the bound still merges.
    const ok = await fx.call('PATCH', `/clients/${c.id}`, { body: { client_metadata: { oauth: { b: 1 } } }, token });
    expect(ok.body.client_metadata.oauth).toEqual({ a: 'x'.repeat(5000), b: 1 });
  });

  it('PUT is a synonym of PATCH; null clears the description; an empty body changes nothing', async () => {
    const c = await fx.createClient({ client_description: 'x', is_first_party: true });
    const put = await fx.call('PUT', `/clients/${c.id}`, { body: { client_description: null } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ client_description: null, is_first_party: true, client_name: c.client_name });
    const empty = await fx.call('PATCH', `/clients/${c.id}`, { body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ client_description: null, is_first_party: true });
  });

  it('shows the secret to read:client_keys callers (no-store), honours fields', async () => {
    const c = await fx.createClient();
    const res = await fx.call('PATCH', `/clients/${c.id}?fields=id,client_secret,is_first_party`, {
      body: { is_first_party: true },
      token: await fx.svc.managementToken('update:clients read:client_keys'),
    });
    expect(res.body).toEqual({ id: c.id, client_secret: c.client_secret, is_first_party: true });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('confidential → public: the secret stops working; public → confidential: a fresh secret, returned once', async () => {
    const api = await fx.createResource(['read']);
    const c = await fx.createClient();
    await fx.call('POST', `/clients/${c.id}/resources`, { body: { resources: [api.id] } });
    const pub = await fx.call('PATCH', `/clients/${c.id}`, {
      body: { is_public: true, client_metadata: { grant_types: ['authorization_code'] } },
    });
    expect(pub.status).toBe(200);
    expect(pub.body.client_secret).toBeUndefined();
    expect((await fx.token(c.id, c.client_secret, api.audience)).status).toBe(401);

    const conf = await fx.call('PATCH', `/clients/${c.id}`, {
      body: { is_public: false, client_metadata: { grant_types: ['client_credentials'] } },
    });
    expect(conf.status).toBe(200);
    expect(conf.headers.get('cache-control')).toBe('no-store');
    expect(conf.body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(conf.body.client_secret).not.toBe(c.client_secret);
    expect((await fx.token(c.id, c.client_secret, api.audience)).status).toBe(401);
    expect((await fx.token(c.id, conf.body.client_secret, api.audience)).status).toBe(200);
  });

  it('a secret expiry is honoured by /token; null removes it', async () => {
    const api = await fx.createResource(['read']);
    const c = await fx.createClient();
    await fx.call('POST', `/clients/${c.id}/resources`, { body: { resources: [api.id] } });
    const soon = new Date(fx.clock.now().getTime() + 60_000).toISOString();
    expect((await fx.call('PATCH', `/clients/${c.id}`, { body: { client_secret_expires_at: soon } })).body.client_secret_expires_at).toBe(
      soon,
    );
    expect((await fx.token(c.id, c.client_secret, api.audience)).status).toBe(200);
    fx.clock.advance(60_000); // the service's clock, not a sleep: the secret is now exactly at its expiry
    expect((await fx.token(c.id, c.client_secret, api.audience)).status).toBe(401);
    expect(
      (await fx.call('PATCH', `/clients/${c.id}`, { body: { client_secret_expires_at: null } })).body.client_secret_expires_at,
    ).toBeNull();
    expect((await fx.token(c.id, c.client_secret, api.audience)).status).toBe(200);
  });

  it('404 for an unknown client', async () => {
    expect((await fx.call('PATCH', `/clients/${UNKNOWN_ID}`, { body: { client_name: 'x' } })).status).toBe(404);
  });
});
