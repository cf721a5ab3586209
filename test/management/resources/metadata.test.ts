import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResourcesFixture, resourcesFixture } from '../../support/management/resources-fixture.ts';

/** The `resource_metadata` rules that span fields (docs/management-resources.md §2) and the management API resource. */
let fx: ResourcesFixture;
beforeAll(async () => {
  fx = await resourcesFixture();
});
afterAll(async () => fx?.stop());

const SECRET = 'an-hs256-secret-of-at-least-32-bytes!!';

describe('signing_secret is write-only unless read:client_keys (docs/contract.md §6)', () => {
  it('HS256 secret: not returned to a caller without read:client_keys; returned (no-store) with it', async () => {
    const withoutKeys = await fx.svc.managementToken('create:resources read:resources update:resources');
    const created = await fx.call('POST', '/resources', {
      token: withoutKeys,
      body: {
        resource_type: 'api',
        resource_name: 'HS',
        resource_metadata: { identifier_url: fx.audience(), signing_algorithm: 'HS256', signing_secret: SECRET },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.resource_metadata).not.toHaveProperty('signing_secret');
    expect(created.headers.get('cache-control')).toBeNull();
    const id = created.body.id;

    const hidden = await fx.call('GET', `/resources/${id}`, { token: withoutKeys });
    expect(hidden.body.resource_metadata).not.toHaveProperty('signing_secret');
    const listed = await fx.call('GET', `/resources?q=(id=${id})`, { token: withoutKeys });
    expect(listed.body.items[0].resource_metadata).not.toHaveProperty('signing_secret');

    const shown = await fx.call('GET', `/resources/${id}`); // admin: every scope, read:client_keys included
    expect(shown.body.resource_metadata.signing_secret).toBe(SECRET);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    const page = await fx.call('GET', `/resources?q=(id=${id})`);
    expect(page.body.items[0].resource_metadata.signing_secret).toBe(SECRET);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const fieldsOnly = await fx.call('GET', `/resources/${id}?fields=resource_metadata`);
    expect(fieldsOnly.body).toEqual({ resource_metadata: expect.objectContaining({ signing_secret: SECRET }) });

    const rotated = await fx.call('PATCH', `/resources/${id}`, { body: { resource_metadata: { signing_secret: `${SECRET}-rotated` } } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.resource_metadata.signing_secret).toBe(`${SECRET}-rotated`);
  });

  it('HS256 needs a secret (400); other algorithms take none (400); switching back to HS256 reuses the kept one', async () => {
    const noSecret = await fx.call('POST', '/resources', {
      body: { resource_type: 'api', resource_name: 'x', resource_metadata: { signing_algorithm: 'HS256' } },
    });
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.message).toMatch(/^body\.resource_metadata\.signing_secret: is required/);
    const wrongAlg = await fx.call('POST', '/resources', {
      body: { resource_type: 'api', resource_name: 'x', resource_metadata: { signing_secret: SECRET } },
    });
    expect(wrongAlg.status).toBe(400);
    expect(wrongAlg.body.message).toMatch(/^body\.resource_metadata\.signing_secret: is only used/);

    const es = await fx.createResource();
    const toHs = await fx.call('PATCH', `/resources/${es.id}`, { body: { resource_metadata: { signing_algorithm: 'HS256' } } });
    expect(toHs.status).toBe(400);
    const hs = await fx.call('PATCH', `/resources/${es.id}`, {
      body: { resource_metadata: { signing_algorithm: 'HS256', signing_secret: SECRET } },
    });
    expect(hs.body.resource_metadata).toMatchObject({ signing_algorithm: 'HS256', signing_secret: SECRET });
    const back = await fx.call('PATCH', `/resources/${es.id}`, { body: { resource_metadata: { signing_algorithm: 'ES256' } } });
    expect(back.body.resource_metadata.signing_algorithm).toBe('ES256');
    expect(back.body.resource_metadata).not.toHaveProperty('signing_secret');
    const again = await fx.call('PATCH', `/resources/${es.id}`, { body: { resource_metadata: { signing_algorithm: 'HS256' } } });
    expect(again.status).toBe(200);
    expect(again.body.resource_metadata.signing_secret).toBe(SECRET);
  });
});

describe('the management API resource (docs/contract.md §4)', () => {
  it('is listed with is_system; cannot be deleted (403), moved (403) or made HS256 (403); other fields may change', async () => {
    const sys = await fx.systemResource();
    expect(sys.resource_metadata).toMatchObject({ is_system: true, identifier_url: fx.svc.managementAudience });
    const del = await fx.call('DELETE', `/resources/${sys.id}`);
    expect(del.status).toBe(403);
    expect(del.body.code).toBe('forbidden');
    const move = await fx.call('PATCH', `/resources/${sys.id}`, { body: { resource_metadata: { identifier_url: fx.audience() } } });
    expect(move.status).toBe(403);
    const hs = await fx.call('PATCH', `/resources/${sys.id}`, {
      body: { resource_metadata: { signing_algorithm: 'HS256', signing_secret: SECRET } },
    });
    expect(hs.status).toBe(403);
    const ok = await fx.call('PATCH', `/resources/${sys.id}`, { body: { resource_description: 'Managed here' } });
    expect(ok.status).toBe(200);
    // Still usable
    expect((await fx.call('GET', `/resources/${sys.id}`, { token: await fx.svc.managementToken('read:resources') })).status).toBe(200);
  });
});
