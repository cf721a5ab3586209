import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourcesRepository } from '#shared/store/resources/resources-repository.ts';
import { type ClientsFixture, clientsFixture } from '../../support/management/clients-fixture.ts';

let fx: ClientsFixture;
beforeAll(async () => {
  fx = await clientsFixture();
});
afterAll(async () => fx?.stop());

const resourceClients = async (id: string) => {
  const { runtime } = fx.svc.stack;
  return (await resourcesRepository(runtime.db, runtime.config.tableName, runtime.now, runtime.secretBox).get(id))!.aggregations.clients;
};

describe('concurrency (docs/design.md §3.7: one transaction, links_version / version conditions)', () => {
  it('20 parallel authorizations of one resource to one client: exactly one 204, the rest 409; counts 1', async () => {
    const a = await fx.createResource(['read']);
    const c = await fx.createClient();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => fx.call('POST', `/clients/${c.id}/resources`, { body: { resources: [a.id] } })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 204)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of results.filter((r) => r.status === 409)) expect(r.body.code).toBe('conflict');
    expect((await fx.call('GET', `/clients/${c.id}?fields=aggregations`)).body.aggregations).toMatchObject({
      resources: 1,
      permissions: 0,
    });
    expect((await fx.call('GET', `/clients/${c.id}/resources?total_count=true`)).body.total_count).toBe(1);
    expect(await resourceClients(a.id)).toBe(1);
  });

  it('parallel grants of one permission: one 204; parallel grants of different scopes: counts equal what succeeded', async () => {
    const a = await fx.createResource(['s0', 's1', 's2', 's3', 's4', 's5']);
    const c = await fx.createClient();
    await fx.call('POST', `/clients/${c.id}/resources`, { body: { resources: [a.id] } });
    const same = await Promise.all(
      Array.from({ length: 10 }, () =>
        fx.call('POST', `/clients/${c.id}/permissions`, { body: { permissions: [{ resource_id: a.id, scopes: [a.scope('s0')] }] } }),
      ),
    );
    expect(same.filter((r) => r.status === 204)).toHaveLength(1);
    expect(same.filter((r) => r.status === 409)).toHaveLength(9);

    const different = await Promise.all(
      ['s1', 's2', 's3', 's4', 's5'].map((s) =>
        fx.call('POST', `/clients/${c.id}/permissions`, { body: { permissions: [{ resource_id: a.id, scopes: [a.scope(s)] }] } }),
      ),
    );
    for (const r of different) expect([204, 409]).toContain(r.status);
    const ok = different.filter((r) => r.status === 204).length;
    expect(ok).toBeGreaterThan(0);
    const perms = (await fx.call('GET', `/clients/${c.id}/permissions?total_count=true`)).body.total_count;
    expect(perms).toBe(1 + ok);
    expect((await fx.call('GET', `/clients/${c.id}?fields=aggregations`)).body.aggregations.permissions).toBe(perms);
  });

  it('parallel PATCHes of different fields of one client lose no field', async () => {
    const c = await fx.createClient({ client_name: 'before' });
    const patches: Record<string, unknown>[] = [
      { client_name: 'after' },
      { client_description: 'described' },
      { is_first_party: true },
      { app_metadata: [{ key: 'k', value: 'v' }] },
      { client_metadata: { urls: { redirect_uris: ['https://a.example.com/cb'] } } },
      { client_metadata: { id_token: { expiration_lifetime: 900 } } },
    ];
    const results = await Promise.all(patches.map((body) => fx.call('PATCH', `/clients/${c.id}`, { body })));
    expect(results.map((r) => r.status)).toEqual(patches.map(() => 200));
    const final = (await fx.call('GET', `/clients/${c.id}`)).body;
    expect(final).toMatchObject({
      client_name: 'after',
      client_description: 'described',
      is_first_party: true,
      app_metadata: [{ key: 'k', value: 'v' }],
      client_metadata: { urls: { redirect_uris: ['https://a.example.com/cb'] }, id_token: { expiration_lifetime: 900 } },
    });
  });

  it('a PATCH racing link changes neither loses the PATCH nor the counts', async () => {
    const rs = [await fx.createResource(), await fx.createResource(), await fx.createResource()];
    const c = await fx.createClient();
    const results = await Promise.all([
      ...rs.map((r) => fx.call('POST', `/clients/${c.id}/resources`, { body: { resources: [r.id] } })),
      fx.call('PATCH', `/clients/${c.id}`, { body: { client_name: 'renamed while linking' } }),
    ]);
    expect(results.at(-1)!.status).toBe(200);
    const linked = results.slice(0, 3).filter((r) => r.status === 204).length;
    const final = (await fx.call('GET', `/clients/${c.id}`)).body;
    expect(final.client_name).toBe('renamed while linking');
    expect(final.aggregations.resources).toBe(linked);
  });

  it('a secret change racing a PATCH keeps both', async () => {
    const c = await fx.createClient();
    const [secret, patch] = await Promise.all([
      fx.call('POST', `/clients/${c.id}/secret`),
      fx.call('PATCH', `/clients/${c.id}`, { body: { client_description: 'kept' } }),
    ]);
    expect(secret.status).toBe(200);
    expect(patch.status).toBe(200);
    const final = (await fx.call('GET', `/clients/${c.id}`)).body;
    expect(final.client_description).toBe('kept');
    expect(final.client_secret).toBe(secret.body.client_secret);
  });
});
