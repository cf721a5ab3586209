import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SCOPES_PER_RESOURCE } from '#shared/store/resources/scopes-repository.ts';
import { type ResourcesFixture, resourcesFixture, UNKNOWN_ID } from '../../support/management/resources-fixture.ts';

/** Resource Scopes (docs/contract.md §6 `/resources/{id}/scopes[/{scope_id}]`, spec §2.8). */
let fx: ResourcesFixture;
beforeAll(async () => {
  fx = await resourcesFixture();
});
afterAll(async () => fx?.stop());

const scopesPath = (rid: string) => `/resources/${rid}/scopes`;

describe('POST /resources/{id}/scopes', () => {
  it('201 with the Scope of spec §2.8; the resource counts it (aggregations.scopes)', async () => {
    const r = await fx.createResource();
    const res = await fx.call('POST', scopesPath(r.id), { body: { scope_name: 'read:invoices', scope_description: 'Read invoices' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      tenant_id: r.tenant_id,
      resource_id: r.id,
      scope_name: 'read:invoices',
      scope_description: 'Read invoices',
      created_by: fx.svc.clientId,
      created_at: expect.any(String),
      updated_by: fx.svc.clientId,
      updated_at: expect.any(String),
    });
    expect(res.body).not.toHaveProperty('version');
    expect((await fx.getResource(r.id)).aggregations.scopes).toBe(1);
    const bare = await fx.call('POST', `${scopesPath(r.id)}?fields=scope_name`, { body: { scope_name: 'openid' } });
    expect(bare.body).toEqual({ scope_name: 'openid' });
    expect((await fx.getResource(r.id)).aggregations.scopes).toBe(2);
  });

  it('scope_name is unique within the resource (409), case-sensitive, and free in another resource', async () => {
    const a = await fx.createResource();
    const b = await fx.createResource();
    await fx.createScope(a.id, 'read');
    const dup = await fx.call('POST', scopesPath(a.id), { body: { scope_name: 'read' } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('conflict');
    await fx.createScope(a.id, 'Read'); // RFC 6749 §3.3: scope tokens are case-sensitive
    await fx.createScope(b.id, 'read');
    expect((await fx.getResource(a.id)).aggregations.scopes).toBe(2);
  });

  it('10 parallel creates of one scope_name: exactly one 201, the rest 409, counted once', async () => {
    const r = await fx.createResource();
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => fx.call('POST', scopesPath(r.id), { body: { scope_name: 'race' } })),
    );
    expect(replies.map((x) => x.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    expect((await fx.getResource(r.id)).aggregations.scopes).toBe(1);
    expect((await fx.call('GET', scopesPath(r.id))).body.count).toBe(1);
  });

  it('404 for an unknown resource; 403 without update:resources; 401 without a token', async () => {
    expect((await fx.call('POST', scopesPath(UNKNOWN_ID), { body: { scope_name: 'x' } })).status).toBe(404);
    const r = await fx.createResource();
    const reader = await fx.svc.managementToken('read:resources create:resources');
    const denied = await fx.call('POST', scopesPath(r.id), { body: { scope_name: 'x' }, token: reader });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('insufficient_scope');
    expect((await fx.call('POST', scopesPath(r.id), { body: { scope_name: 'x' }, token: null })).status).toBe(401);
  });
});

/**
 * Every scope's name lives in the resource item too (`scope_names`): ~1,400 scopes with 255-character
 * names outgrew DynamoDB's 400 KB item limit and the next create was a 500 (found probing past the
 * fuzzer, test/management/resources/fuzz.test.ts). The count is seeded in the item so the
 * test does not create 500 scopes.
 */
describe('scopes per resource are capped at MAX_SCOPES_PER_RESOURCE', () => {
  it('POST /resources/{id}/scopes on a resource holding the maximum is a 409, not a 500; deleting one frees a place', async () => {
    const r = await fx.createResource();
    const { db, config } = fx.svc.stack.runtime;
    const setCount = (n: number) =>
      db.send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: { PK: `RESOURCE#${r.id}`, SK: 'RESOURCE' },
          UpdateExpression: 'SET aggregations.scopes = :n',
          ExpressionAttributeValues: { ':n': n },
        }),
      );
    await setCount(MAX_SCOPES_PER_RESOURCE - 1);
    const last = await fx.createScope(r.id, 'last');
    const full = await fx.call('POST', scopesPath(r.id), { body: { scope_name: 'one-too-many' } });
    expect(full.status).toBe(409);
    expect(full.body).toEqual({ code: 'conflict', message: expect.stringContaining(`maximum of ${MAX_SCOPES_PER_RESOURCE} scopes`) });
    expect((await fx.getResource(r.id)).aggregations.scopes).toBe(MAX_SCOPES_PER_RESOURCE);

    expect((await fx.call('DELETE', `${scopesPath(r.id)}/${last.id}`)).status).toBe(204);
    expect((await fx.call('POST', scopesPath(r.id), { body: { scope_name: 'one-too-many' } })).status).toBe(201);
  });

  it('parallel creates at the cap: exactly the free places are taken', async () => {
    const r = await fx.createResource();
    const { db, config } = fx.svc.stack.runtime;
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: { PK: `RESOURCE#${r.id}`, SK: 'RESOURCE' },
        UpdateExpression: 'SET aggregations.scopes = :n',
        ExpressionAttributeValues: { ':n': MAX_SCOPES_PER_RESOURCE - 2 },
      }),
    );
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => fx.call('POST', scopesPath(r.id), { body: { scope_name: `p${i}` } })),
    );
    expect(results.map((x) => x.status).sort()).toEqual([201, 201, 409, 409, 409, 409]);
    expect((await fx.getResource(r.id)).aggregations.scopes).toBe(MAX_SCOPES_PER_RESOURCE);
  });
});

describe('GET /resources/{id}/scopes[/{scope_id}]', () => {
  it('200 with the scope; fields; 404 for an unknown scope, unknown resource, or a scope of another resource', async () => {
    const a = await fx.createResource();
    const b = await fx.createResource();
    const s = await fx.createScope(a.id, 'read', 'Read');
    const got = await fx.call('GET', `${scopesPath(a.id)}/${s.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(s);
    expect((await fx.call('GET', `${scopesPath(a.id)}/${s.id}?fields=id,scope_name`)).body).toEqual({ id: s.id, scope_name: 'read' });
    expect((await fx.call('GET', `${scopesPath(a.id)}/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await fx.call('GET', `${scopesPath(UNKNOWN_ID)}/${s.id}`)).status).toBe(404);
    expect((await fx.call('GET', `${scopesPath(b.id)}/${s.id}`)).status).toBe(404);
    expect((await fx.call('GET', scopesPath(UNKNOWN_ID))).status).toBe(404);
  });

  it('403 without read:resources', async () => {
    const r = await fx.createResource();
    const token = await fx.svc.managementToken('update:resources');
    expect((await fx.call('GET', scopesPath(r.id), { token })).status).toBe(403);
  });
});

describe('PATCH / PUT /resources/{id}/scopes/{scope_id}', () => {
  it('merges; renames move the unique name (old name free, new one taken); PUT is a synonym', async () => {
    const r = await fx.createResource();
    const s = await fx.createScope(r.id, 'read', 'Read');
    const other = await fx.createScope(r.id, 'write');
    const desc = await fx.call('PATCH', `${scopesPath(r.id)}/${s.id}`, { body: { scope_description: 'Read all' } });
    expect(desc.status).toBe(200);
    expect(desc.body).toMatchObject({ id: s.id, scope_name: 'read', scope_description: 'Read all', created_at: s.created_at });
    const renamed = await fx.call('PUT', `${scopesPath(r.id)}/${s.id}`, { body: { scope_name: 'read:all' } });
    expect(renamed.body).toMatchObject({ scope_name: 'read:all', scope_description: 'Read all' });
    await fx.createScope(r.id, 'read'); // the old name is free
    const taken = await fx.call('PATCH', `${scopesPath(r.id)}/${other.id}`, { body: { scope_name: 'read:all' } });
    expect(taken.status).toBe(409);
    expect((await fx.call('GET', `${scopesPath(r.id)}/${other.id}`)).body.scope_name).toBe('write');
    expect((await fx.getResource(r.id)).aggregations.scopes).toBe(3);
  });

  it('404 unknown scope or resource; 403 without update:resources', async () => {
    const r = await fx.createResource();
    const s = await fx.createScope(r.id, 'read');
    expect((await fx.call('PATCH', `${scopesPath(r.id)}/${UNKNOWN_ID}`, { body: { scope_description: 'x' } })).status).toBe(404);
    expect((await fx.call('PATCH', `${scopesPath(UNKNOWN_ID)}/${s.id}`, { body: { scope_description: 'x' } })).status).toBe(404);
    const token = await fx.svc.managementToken('read:resources');
    expect((await fx.call('PATCH', `${scopesPath(r.id)}/${s.id}`, { body: { scope_description: 'x' }, token })).status).toBe(403);
  });

  it('a rename is what the next token carries', async () => {
    const r = await fx.createResource();
    const s = await fx.createScope(r.id, 'old:name');
    const c = await fx.createClient();
    await fx.authorize(r.id, [c.id]);
    await fx.grant(c.id, r.id, [s.id]);
    const before = await fx.token(c.id, c.secret, r.resource_metadata.identifier_url);
    expect(fx.claimsOf(before.body.access_token).scope).toBe('old:name');
    await fx.call('PATCH', `${scopesPath(r.id)}/${s.id}`, { body: { scope_name: 'new:name' } });
    const after = await fx.token(c.id, c.secret, r.resource_metadata.identifier_url);
    expect(fx.claimsOf(after.body.access_token).scope).toBe('new:name');
    expect((await fx.token(c.id, c.secret, r.resource_metadata.identifier_url, 'old:name')).body.error).toBe('invalid_scope');
  });
});

describe('DELETE /resources/{id}/scopes/{scope_id}', () => {
  it('204, then 404; aggregations.scopes goes down', async () => {
    const r = await fx.createResource();
    const s = await fx.createScope(r.id, 'gone');
    await fx.createScope(r.id, 'kept');
    const del = await fx.call('DELETE', `${scopesPath(r.id)}/${s.id}`);
    expect(del.status).toBe(204);
    expect((await fx.call('GET', `${scopesPath(r.id)}/${s.id}`)).status).toBe(404);
    expect((await fx.call('DELETE', `${scopesPath(r.id)}/${s.id}`)).status).toBe(404);
    expect((await fx.getResource(r.id)).aggregations.scopes).toBe(1);
    await fx.createScope(r.id, 'gone'); // its name is free again
  });

  it("cascade: the scope leaves every client permission, the clients' counts, and tokens at once", async () => {
    const r = await fx.createResource();
    const read = await fx.createScope(r.id, 'read');
    const write = await fx.createScope(r.id, 'write');
    const c1 = await fx.createClient();
    const c2 = await fx.createClient();
    await fx.authorize(r.id, [c1.id, c2.id]);
    await fx.grant(c1.id, r.id, [read.id, write.id]);
    await fx.grant(c2.id, r.id, [write.id]);
    const audience = r.resource_metadata.identifier_url;
    expect(
      fx
        .claimsOf((await fx.token(c1.id, c1.secret, audience)).body.access_token)
        .scope.split(' ')
        .sort(),
    ).toEqual(['read', 'write']);

    expect((await fx.call('DELETE', `${scopesPath(r.id)}/${write.id}`)).status).toBe(204);
    expect((await fx.permissionsOf(c1.id)).map((p) => p.scope_id)).toEqual([read.id]);
    expect(await fx.permissionsOf(c2.id)).toEqual([]);
    expect((await fx.getClient(c1.id))!.aggregations).toEqual({ resources: 1, permissions: 1 });
    expect((await fx.getClient(c2.id))!.aggregations).toEqual({ resources: 1, permissions: 0 });
    expect((await fx.getResource(r.id)).aggregations).toMatchObject({ scopes: 1, clients: 2 });
    const token = await fx.token(c1.id, c1.secret, audience);
    expect(fx.claimsOf(token.body.access_token).scope).toBe('read');
    const refused = await fx.token(c1.id, c1.secret, audience, 'write');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_scope');
  });

  it("the management API's scopes cannot be removed or renamed (403, docs/contract.md §4); 403 without update:resources", async () => {
    const sys = await fx.systemResource();
    const scopes = (await fx.call('GET', `${scopesPath(sys.id)}?${`q=${encodeURIComponent('(scope_name=read:clients)')}`}`)).body.items;
    expect(scopes).toHaveLength(1);
    const s = scopes[0];
    const del = await fx.call('DELETE', `${scopesPath(sys.id)}/${s.id}`);
    expect(del.status).toBe(403);
    expect(del.body.code).toBe('forbidden');
    expect((await fx.call('PATCH', `${scopesPath(sys.id)}/${s.id}`, { body: { scope_name: 'read:everything' } })).status).toBe(403);
    expect((await fx.call('GET', `${scopesPath(sys.id)}/${s.id}`)).body.scope_name).toBe('read:clients');
    const r = await fx.createResource();
    const mine = await fx.createScope(r.id, 'x');
    const token = await fx.svc.managementToken('read:resources delete:resources');
    expect((await fx.call('DELETE', `${scopesPath(r.id)}/${mine.id}`, { token })).status).toBe(403);
  });
});
