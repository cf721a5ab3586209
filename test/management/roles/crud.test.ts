import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import { ROLE_KEYS, type RolesFixture, rolesFixture } from '../../support/management/roles-fixture.ts';

let fx: RolesFixture;
beforeAll(async () => {
  fx = await rolesFixture();
});
afterAll(async () => fx?.stop());

const marker = (name: string) => fx.item(keys.marker('ROLE_NAME', DEFAULT_TENANT, name));

describe('Roles CRUD over HTTP (docs/contract.md §6)', () => {
  it('POST creates: 201 with the Role record, no storage fields; the marker and the count are stored', async () => {
    const before = (await fx.call('GET', '/roles?total_count=true')).body;
    const res = await fx.call('POST', '/roles', { body: { role_name: 'Editors', role_description: 'can edit' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...ROLE_KEYS, 'role_description'].sort());
    expect(res.body).toMatchObject({
      role_name: 'Editors',
      role_description: 'can edit',
      tenant_id: DEFAULT_TENANT,
      aggregations: { permissions: 0, members: 0 },
      created_by: fx.svc.clientId,
    });
    expect((await marker('Editors'))?.target_id).toBe(res.body.id);
    const item = await fx.roleItem(res.body.id);
    expect(item).toMatchObject({ token_grants: {}, links_version: 0, version: 1, GSI1PK: keys.collection(DEFAULT_TENANT, 'ROLES') });
    const got = await fx.call('GET', `/roles/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    const after = (await fx.call('GET', '/roles?total_count=true')).body;
    expect(after.total_count).toBe(before.total_count + 1);
    expect((await fx.item(keys.collectionCounter(DEFAULT_TENANT, 'ROLES')))?.count).toBe(after.total_count);
  });

  it('role_name is unique per tenant: 409 naming it, nothing stored', async () => {
    const a = await fx.createRole({ role_name: 'unique-one' });
    const dup = await fx.call('POST', '/roles', { body: { role_name: 'unique-one' } });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toContain('role_name');
    expect((await marker('unique-one'))?.target_id).toBe(a.id);
    const list = await fx.call('GET', `/roles?q=${encodeURIComponent('(role_name=unique-one)')}`);
    expect(list.body.items.map((r: any) => r.id)).toEqual([a.id]);
  });

  it('GET lists the roles with q, sort and fields', async () => {
    const a = await fx.createRole({ role_name: 'list-a' });
    const b = await fx.createRole({ role_name: 'list-b' });
    const res = await fx.call('GET', '/roles?limit=100&fields=id,role_name');
    expect(res.status).toBe(200);
    const ids = res.body.items.map((r: any) => r.id);
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(Object.keys(res.body.items[0]).sort()).toEqual(['id', 'role_name']);
  });

  it('PATCH merges, moves the marker, null removes the description; PUT is a synonym', async () => {
    const r = await fx.createRole({ role_name: 'old-name', role_description: 'desc' });
    const res = await fx.call('PATCH', `/roles/${r.id}`, { body: { role_name: 'new-name' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ role_name: 'new-name', role_description: 'desc' });
    expect(await marker('old-name')).toBeUndefined();
    expect((await marker('new-name'))?.target_id).toBe(r.id);
    const put = await fx.call('PUT', `/roles/${r.id}`, { body: { role_description: null } });
    expect(put.status).toBe(200);
    expect(put.body.role_description).toBeUndefined();
    expect(put.body.role_name).toBe('new-name');
    expect((await fx.roleItem(r.id))?.version).toBe(3);
  });

  it('PATCH to a taken name is 409 and changes nothing', async () => {
    await fx.createRole({ role_name: 'taken-x' });
    const r = await fx.createRole({ role_name: 'free-y' });
    const res = await fx.call('PATCH', `/roles/${r.id}`, { body: { role_name: 'taken-x' } });
    expect(res.status).toBe(409);
    expect((await fx.call('GET', `/roles/${r.id}`)).body).toEqual(r);
    expect((await marker('free-y'))?.target_id).toBe(r.id);
  });

  it('DELETE: 204, record and marker gone, the name is free again; then 404', async () => {
    const r = await fx.createRole({ role_name: 'to-delete' });
    const res = await fx.call('DELETE', `/roles/${r.id}`);
    expect(res.status).toBe(204);
    expect(await fx.roleItem(r.id)).toBeUndefined();
    expect(await marker('to-delete')).toBeUndefined();
    expect((await fx.call('GET', `/roles/${r.id}`)).status).toBe(404);
    expect((await fx.call('DELETE', `/roles/${r.id}`)).status).toBe(404);
    await fx.createRole({ role_name: 'to-delete' });
  });

  it('unknown ids are 404; bad bodies are 400 naming the field; unknown fields are rejected', async () => {
    expect((await fx.call('GET', `/roles/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await fx.call('PATCH', `/roles/${UNKNOWN_ID}`, { body: { role_name: 'x' } })).status).toBe(404);
    for (const [body, field] of [
      [{}, 'role_name'],
      [{ role_name: '' }, 'role_name'],
      [{ role_name: 'x'.repeat(256) }, 'role_name'],
      [{ role_name: 'a\u202Eb' }, 'role_name'],
      [{ role_name: 'ok', role_nmae: 'typo' }, 'role_nmae'],
      [{ role_name: 'ok', role_description: 5 }, 'role_description'],
    ] as const) {
      const res = await fx.call('POST', '/roles', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(field);
    }
    const r = await fx.createRole();
    const bad = await fx.call('PATCH', `/roles/${r.id}`, { body: { tenant_id: UNKNOWN_ID } });
    expect(bad.status).toBe(400);
    expect((await fx.call('GET', '/roles/not-a-uuid')).status).toBe(400);
  });

  it('scopes: read/create/update/delete:roles are required', async () => {
    const client = await fx.createClient({ client_name: 'reader' });
    const token = await fx.clientToken(client, 'read:roles');
    const r = await fx.createRole();
    expect((await fx.call('GET', `/roles/${r.id}`, { token })).status).toBe(200);
    expect((await fx.call('POST', '/roles', { token, body: { role_name: 'nope' } })).status).toBe(403);
    expect((await fx.call('PATCH', `/roles/${r.id}`, { token, body: { role_name: 'nope' } })).status).toBe(403);
    expect((await fx.call('DELETE', `/roles/${r.id}`, { token })).status).toBe(403);
  });
});
