import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID, type ResourcesFixture, resourcesFixture, UNKNOWN_ID } from '../../support/management/resources-fixture.ts';

let fx: ResourcesFixture;
beforeAll(async () => {
  fx = await resourcesFixture();
});
afterAll(async () => fx?.stop());

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('POST /resources (spec §4.3 "Create a resource")', () => {
  it('201 with every field of spec §2.7, defaults filled, spec §2.4 aggregations, no storage fields', async () => {
    const audience = fx.audience();
    const res = await fx.call('POST', '/resources', {
      body: {
        resource_type: 'api',
        resource_name: 'Billing API',
        resource_description: 'Invoices',
        resource_metadata: { identifier_url: audience },
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const r = res.body;
    expect(r).toEqual({
      id: expect.stringMatching(UUID),
      tenant_id: DEFAULT_TENANT_ID,
      resource_type: 'api',
      resource_name: 'Billing API',
      resource_description: 'Invoices',
      resource_metadata: {
        is_system: false,
        identifier_url: audience,
        signing_algorithm: 'ES256',
        token_lifetime: 3600,
        rbac_enabled: false,
        scopes_added: false,
        skip_consent_for_first_party: true,
      },
      app_metadata: [],
      aggregations: {
        id: r.id,
        resource_id: r.id,
        scopes: 0,
        clients: 0,
        created_by: fx.svc.clientId,
        created_at: r.created_date,
        updated_by: fx.svc.clientId,
        updated_at: r.updated_date,
      },
      created_by: fx.svc.clientId,
      created_date: expect.stringMatching(ISO_MS),
      updated_by: fx.svc.clientId,
      updated_date: expect.stringMatching(ISO_MS),
    });
    // No children without expand (docs/contract.md §3), no storage fields.
    for (const k of ['scopes', 'clients', 'scope_names', 'scope_holders', 'links_version', 'version', 'PK', 'type'])
      expect(r).not.toHaveProperty(k);
  });

  it('accepts every resource_metadata member and app_metadata', async () => {
    const r = await fx.createResource({
      app_metadata: [{ key: 'team', value: 'billing' }],
      resource_metadata: {
        signing_algorithm: 'RS256',
        token_lifetime: 600,
        rbac_enabled: true,
        scopes_added: true,
        skip_consent_for_first_party: false,
      },
    });
    expect(r.resource_metadata).toMatchObject({
      signing_algorithm: 'RS256',
      token_lifetime: 600,
      rbac_enabled: true,
      scopes_added: true,
      skip_consent_for_first_party: false,
    });
    expect(r.app_metadata).toEqual([{ key: 'team', value: 'billing' }]);
  });

  it('without resource_metadata (the spec makes it optional) the identifier is derived: urn:uuid:{id}', async () => {
    const res = await fx.call('POST', '/resources', { body: { resource_type: 'api', resource_name: 'No metadata' } });
    expect(res.status).toBe(201);
    expect(res.body.resource_metadata.identifier_url).toBe(`urn:uuid:${res.body.id}`);
  });

  it('honours fields and expand on create', async () => {
    const res = await fx.call('POST', '/resources?fields=id,resource_name,scopes&expand=all', {
      body: { resource_type: 'api', resource_name: 'Shaped' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), resource_name: 'Shaped', scopes: [] });
  });

  it('identifier_url is unique per tenant: 409 conflict', async () => {
    const audience = fx.audience();
    await fx.createResource({ resource_metadata: { identifier_url: audience } });
    const res = await fx.call('POST', '/resources', {
      body: { resource_type: 'api', resource_name: 'Dup', resource_metadata: { identifier_url: audience } },
    });
    expect(res.status).toBe(409);
    // docs/contract.md §8: the field is named, the identifier sent is not echoed.
    expect(res.body).toEqual({
      code: 'conflict',
      message: 'body.resource_metadata.identifier_url: a resource with this identifier_url already exists.',
    });
  });

  it('10 parallel creates of one identifier_url: exactly one 201, the rest 409', async () => {
    const audience = fx.audience();
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fx.call('POST', '/resources', {
          body: { resource_type: 'api', resource_name: `Race ${i}`, resource_metadata: { identifier_url: audience } },
        }),
      ),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    const list = await fx.call('GET', '/resources?limit=100');
    expect((list.body.items as any[]).filter((r) => r.resource_metadata.identifier_url === audience)).toHaveLength(1);
  });

  it('401 without a token, 403 insufficient_scope without create:resources', async () => {
    const body = { resource_type: 'api', resource_name: 'x' };
    const none = await fx.call('POST', '/resources', { body, token: null });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(none.body.code).toBe('unauthorized');
    const reader = await fx.svc.managementToken('read:resources');
    const res = await fx.call('POST', '/resources', { body, token: reader });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
  });
});

describe('GET /resources/{id} (spec §4.3 "Get a resource")', () => {
  it('200 with the record; fields restricts; expand=all adds scopes and clients', async () => {
    const r = await fx.createResource({ resource_name: 'Readable' });
    await fx.createScope(r.id, 'read:things', 'Read things');
    const got = await fx.getResource(r.id);
    expect(got).toEqual({ ...r, aggregations: { ...r.aggregations, scopes: 1 } });
    expect(await fx.getResource(r.id, '?fields=id,resource_name')).toEqual({ id: r.id, resource_name: 'Readable' });
    const expanded = await fx.getResource(r.id, '?expand=all');
    expect(expanded.scopes).toEqual([
      expect.objectContaining({ resource_id: r.id, scope_name: 'read:things', scope_description: 'Read things' }),
    ]);
    expect(expanded.clients).toEqual([]);
    // fields naming a child without expand: allowed, the child is absent (docs/lists.md §4)
    expect(await fx.getResource(r.id, '?fields=id,scopes')).toEqual({ id: r.id });
  });

  it('404 not_found for an unknown id; 400 for a malformed one; 403 without read:resources', async () => {
    const unknown = await fx.call('GET', `/resources/${UNKNOWN_ID}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 'not_found', message: expect.any(String) });
    const bad = await fx.call('GET', '/resources/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^path\.resource_id: /);
    const token = await fx.svc.managementToken('read:clients');
    expect((await fx.call('GET', `/resources/${UNKNOWN_ID}`, { token })).status).toBe(403);
    expect((await fx.call('GET', `/resources/${UNKNOWN_ID}`, { token: null })).status).toBe(401);
  });
});

describe('PATCH / PUT /resources/{id} (spec §4.3 "Modify a resource"; docs/contract.md §6 merge)', () => {
  it('merges: a field left out keeps its value, nested metadata too; updated_date moves, created_date stays', async () => {
    const r = await fx.createResource({
      resource_description: 'before',
      app_metadata: [{ key: 'a', value: '1' }],
      resource_metadata: { token_lifetime: 900 },
    });
    const res = await fx.call('PATCH', `/resources/${r.id}`, {
      body: { resource_name: 'Renamed', resource_metadata: { rbac_enabled: true } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      resource_name: 'Renamed',
      resource_description: 'before',
      app_metadata: [{ key: 'a', value: '1' }],
      resource_metadata: { token_lifetime: 900, rbac_enabled: true, identifier_url: r.resource_metadata.identifier_url },
      created_date: r.created_date,
    });
    expect(res.body.updated_date >= r.updated_date).toBe(true);
    expect(await fx.getResource(r.id)).toEqual(res.body);
  });

  it('PUT is a synonym; a GET body sent back with PUT is accepted (read-only members equal to the record are ignored)', async () => {
    const r = await fx.createResource();
    const put = await fx.call('PUT', `/resources/${r.id}`, { body: { ...r, resource_description: 'via PUT' } });
    expect(put.status).toBe(200);
    expect(put.body.resource_description).toBe('via PUT');
    expect(put.body.resource_type).toBe('api');
  });

  it('app_metadata is replaced whole; "" clears the description', async () => {
    const r = await fx.createResource({ resource_description: 'x', app_metadata: [{ key: 'a', value: '1' }] });
    const res = await fx.call('PATCH', `/resources/${r.id}`, {
      body: { resource_description: '', app_metadata: [{ key: 'b', value: '2' }] },
    });
    expect(res.body).toMatchObject({ resource_description: '', app_metadata: [{ key: 'b', value: '2' }] });
  });

  it('identifier_url can move; moving onto a taken one is 409 and changes nothing', async () => {
    const a = await fx.createResource();
    const b = await fx.createResource();
    const next = fx.audience();
    const moved = await fx.call('PATCH', `/resources/${a.id}`, { body: { resource_metadata: { identifier_url: next } } });
    expect(moved.body.resource_metadata.identifier_url).toBe(next);
    const taken = await fx.call('PATCH', `/resources/${b.id}`, {
      body: { resource_name: 'lost', resource_metadata: { identifier_url: next } },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('conflict');
    expect((await fx.getResource(b.id)).resource_name).toBe(b.resource_name);
    // the old identifier is free again
    await fx.createResource({ resource_metadata: { identifier_url: a.resource_metadata.identifier_url } });
  });

  it('is_system and resource_type are read-only (400); 404 unknown; 403 without update:resources', async () => {
    const r = await fx.createResource();
    const sys = await fx.call('PATCH', `/resources/${r.id}`, { body: { resource_metadata: { is_system: true } } });
    expect(sys.status).toBe(400);
    expect(sys.body.message).toMatch(/^body\.resource_metadata\.is_system: is read-only/);
    const type = await fx.call('PATCH', `/resources/${r.id}`, { body: { resource_type: 'database' } });
    expect(type.status).toBe(400);
    expect(type.body.message).toMatch(/^body\.resource_type: /);
    expect((await fx.call('PATCH', `/resources/${UNKNOWN_ID}`, { body: { resource_name: 'x' } })).status).toBe(404);
    const reader = await fx.svc.managementToken('read:resources');
    expect((await fx.call('PATCH', `/resources/${r.id}`, { body: { resource_name: 'x' }, token: reader })).status).toBe(403);
  });

  it('parallel PATCHes of different fields all land (no lost update)', async () => {
    const r = await fx.createResource();
    const replies = await Promise.all([
      fx.call('PATCH', `/resources/${r.id}`, { body: { resource_name: 'N' } }),
      fx.call('PATCH', `/resources/${r.id}`, { body: { resource_description: 'D' } }),
      fx.call('PATCH', `/resources/${r.id}`, { body: { resource_metadata: { token_lifetime: 120 } } }),
      fx.call('PATCH', `/resources/${r.id}`, { body: { resource_metadata: { rbac_enabled: true } } }),
      fx.call('PATCH', `/resources/${r.id}`, { body: { app_metadata: [{ key: 'k', value: 'v' }] } }),
    ]);
    expect(replies.map((x) => x.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await fx.getResource(r.id)).toMatchObject({
      resource_name: 'N',
      resource_description: 'D',
      app_metadata: [{ key: 'k', value: 'v' }],
      resource_metadata: { token_lifetime: 120, rbac_enabled: true },
    });
  });
});

describe('DELETE /resources/{id} (docs/contract.md §6)', () => {
  it('204, then 404; a second delete is 404; its identifier_url is free again', async () => {
    const r = await fx.createResource();
    const del = await fx.call('DELETE', `/resources/${r.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await fx.call('GET', `/resources/${r.id}`)).status).toBe(404);
    expect((await fx.call('DELETE', `/resources/${r.id}`)).status).toBe(404);
    await fx.createResource({ resource_metadata: { identifier_url: r.resource_metadata.identifier_url } });
  });

  it('403 without delete:resources; 401 without a token; 400 malformed id', async () => {
    const r = await fx.createResource();
    const token = await fx.svc.managementToken('read:resources update:resources');
    expect((await fx.call('DELETE', `/resources/${r.id}`, { token })).status).toBe(403);
    expect((await fx.call('DELETE', `/resources/${r.id}`, { token: null })).status).toBe(401);
    expect((await fx.call('DELETE', '/resources/123')).status).toBe(400);
    expect((await fx.call('GET', `/resources/${r.id}`)).status).toBe(200);
  });
});

describe('around the operations', () => {
  it('single-tenant mode ignores the tenant_id header (docs/contract.md §4)', async () => {
    const made = await fx.call('POST', '/resources', {
      body: { resource_type: 'api', resource_name: 'h' },
      headers: { tenant_id: UNKNOWN_ID },
    });
    expect(made.status).toBe(201);
    expect(made.body.tenant_id).toBe(DEFAULT_TENANT_ID);
    expect((await fx.call('GET', '/resources', { headers: { tenant_id: UNKNOWN_ID } })).body.count).toBeGreaterThan(0);
  });

  it('an unsupported method is 405 method_not_allowed with Allow (spec §7)', async () => {
    const res = await fx.call('PUT', '/resources', { body: {} });
    expect(res.status).toBe(405);
    expect(res.body.code).toBe('method_not_allowed');
    expect(res.headers.get('allow')).toMatch(/GET/);
    const scopes = await fx.call('PUT', `/resources/${UNKNOWN_ID}/scopes`, { body: {} });
    expect(scopes.status).toBe(405);
  });
});
