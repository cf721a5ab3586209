import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_KEYS, type ClientsFixture, clientsFixture, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';

let fx: ClientsFixture;
beforeAll(async () => {
  fx = await clientsFixture();
});
afterAll(async () => fx?.stop());

describe('DELETE /clients/{client_id}', () => {
  it('204, then 404 on read and on a second delete; the client can no longer get tokens', async () => {
    const api = await fx.createResource(['read']);
    const c = await fx.createClient();
    await fx.call('POST', `/clients/${c.id}/resources`, { body: { resources: [api.id] } });
    expect((await fx.token(c.id, c.client_secret, api.audience)).status).toBe(200);
    const del = await fx.call('DELETE', `/clients/${c.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await fx.call('GET', `/clients/${c.id}`)).status).toBe(404);
    expect((await fx.call('DELETE', `/clients/${c.id}`)).status).toBe(404);
    expect((await fx.token(c.id, c.client_secret, api.audience)).status).toBe(401);
  });

  it('the Default Client cannot be deleted: 403 (spec §4.3)', async () => {
    const res = await fx.call('DELETE', `/clients/${fx.svc.clientId}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 'forbidden', message: expect.stringContaining('Default Client') });
    expect((await fx.call('GET', `/clients/${fx.svc.clientId}`)).status).toBe(200);
  });

  it('the Default Client stays a global confidential client_credentials client: 403 on PATCHes that would lock the operator out', async () => {
    const other = '019b0000-0000-7000-8000-0000000000bb';
    for (const body of [
      { is_public: true, client_metadata: { grant_types: ['authorization_code'] } },
      { is_global: false },
      { tenant_id: other },
      { client_metadata: { grant_types: ['authorization_code'] } },
    ]) {
      const res = await fx.call('PATCH', `/clients/${fx.svc.clientId}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(403);
    }
    expect((await fx.call('PATCH', `/clients/${fx.svc.clientId}`, { body: { client_description: 'still mine' } })).status).toBe(200);
  });
});

describe('POST /clients/{client_id}/secret (spec §4.3 change secret)', () => {
  it('200 with the new secret (no-store); the old secret fails at /token at once, the new one works', async () => {
    const api = await fx.createResource(['read']);
    const c = await fx.createClient();
    await fx.call('POST', `/clients/${c.id}/resources`, { body: { resources: [api.id] } });
    expect((await fx.token(c.id, c.client_secret, api.audience)).status).toBe(200);

    const res = await fx.call('POST', `/clients/${c.id}/secret`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual([...CLIENT_KEYS, 'client_secret'].sort());
    expect(res.body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.client_secret).not.toBe(c.client_secret);

    const old = await fx.token(c.id, c.client_secret, api.audience);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    expect((await fx.token(c.id, res.body.client_secret, api.audience)).status).toBe(200);
    // And a read with read:client_keys now shows the new one.
    const read = await fx.call('GET', `/clients/${c.id}?fields=client_secret`, {
      token: await fx.svc.managementToken('read:clients read:client_keys'),
    });
    expect(read.body).toEqual({ client_secret: res.body.client_secret });
  });

  it('clears an expiry set for the old secret; honours fields', async () => {
    const c = await fx.createClient({ client_secret_expires_at: new Date(Date.now() + 60_000).toISOString() });
    const res = await fx.call('POST', `/clients/${c.id}/secret?fields=client_secret_expires_at`);
    expect(res.body).toEqual({ client_secret_expires_at: null });
  });

  it('400 for a public client, 404 for an unknown one, 403 without update:client_keys', async () => {
    const pub = await fx.createClient({ is_public: true });
    expect((await fx.call('POST', `/clients/${pub.id}/secret`)).status).toBe(400);
    expect((await fx.call('POST', `/clients/${UNKNOWN_ID}/secret`)).status).toBe(404);
    const c = await fx.createClient();
    const res = await fx.call('POST', `/clients/${c.id}/secret`, { token: await fx.svc.managementToken('update:clients') });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
  });
});
