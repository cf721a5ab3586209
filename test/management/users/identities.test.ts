import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { MAX_IDENTITIES_PER_USER } from '#shared/store/users/user-identities-repository.ts';
import { DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import { type IdentityProvidersFixture, identityProvidersFixture } from '../../support/management/identity-providers-fixture.ts';

let fx: IdentityProvidersFixture;
/** A provider of the default tenant, and one of tenant B. */
let provider: Record<string, any>;
let providerB: Record<string, any>;
let tenantB: string;
let boundB: string;

beforeAll(async () => {
  fx = await identityProvidersFixture();
  provider = await fx.createProvider(DEFAULT_TENANT);
  tenantB = (await fx.createTenantApi()).id;
  providerB = await fx.createProvider(tenantB);
  boundB = (await fx.boundToken(tenantB, 'read:users update:users delete:users')).token;
});
afterAll(async () => fx?.stop());

const IDENTITY_KEYS = [
  'created_at',
  'created_by',
  'id',
  'provider_id',
  'provider_user_id',
  'tenant_id',
  'updated_at',
  'updated_by',
  'user_id',
];
const sub = () => `sub|${randomUUID()}`;
const link = (userId: string, body: Record<string, unknown>, options: { token?: string } = {}) =>
  fx.call('POST', `/users/${userId}/identities`, { body, ...options });
const marker = (providerId: string, providerUserId: string) => fx.item(keys.marker('IDENTITY', providerId, providerUserId));
const identityItem = (userId: string, id: string) => fx.item(keys.userIdentity(userId, id));

describe('User Identities over HTTP (docs/contract.md §6, §7.7)', () => {
  it('POST links: 201 with the identity; the item, its marker and the count are stored; GET lists it', async () => {
    const user = await fx.createUser();
    const providerUserId = sub();
    const res = await link(user.id, { provider_id: provider.id, provider_user_id: providerUserId });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(Object.keys(res.body).sort()).toEqual(IDENTITY_KEYS);
    expect(res.body).toMatchObject({
      tenant_id: DEFAULT_TENANT,
      user_id: user.id,
      provider_id: provider.id,
      provider_user_id: providerUserId,
      created_by: fx.svc.clientId,
      updated_by: fx.svc.clientId,
    });
    expect(await identityItem(user.id, res.body.id)).toMatchObject({ ...res.body, type: 'UserIdentity' });
    expect(await marker(provider.id, providerUserId)).toMatchObject({
      target_id: res.body.id,
      user_id: user.id,
      tenant_id: DEFAULT_TENANT,
    });
    expect((await fx.item(keys.user(user.id)))?.identity_count).toBe(1);

    const list = await fx.call('GET', `/users/${user.id}/identities?total_count=true`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total_count: 1, count: 1, has_more: false });
    expect(list.body.items).toEqual([res.body]);
    const expanded = await fx.call('GET', `/users/${user.id}/identities?expand=all`);
    expect(expanded.body.items).toEqual([{ ...res.body, provider_data: provider }]);
    // The user's own answer never shows the count.
    expect((await fx.call('GET', `/users/${user.id}`)).body.identity_count).toBeUndefined();
  });

  it('a pair is linked once: 409 naming body.provider_user_id for the same or another user, nothing stored', async () => {
    const [a, b] = [await fx.createUser(), await fx.createUser()];
    const body = { provider_id: provider.id, provider_user_id: sub() };
    expect((await link(a.id, body)).status).toBe(201);
    for (const target of [a, b]) {
      const dup = await link(target.id, body);
      expect(dup.status).toBe(409);
      expect(dup.body).toEqual({ code: 'conflict', message: expect.stringContaining('body.provider_user_id') });
    }
    expect((await fx.call('GET', `/users/${a.id}/identities`)).body.count).toBe(1);
    expect((await fx.call('GET', `/users/${b.id}/identities`)).body.count).toBe(0);
    expect((await fx.item(keys.user(a.id)))?.identity_count).toBe(1);
    expect((await fx.item(keys.user(b.id)))?.identity_count).toBeUndefined();
    expect((await marker(provider.id, body.provider_user_id))?.user_id).toBe(a.id);
  });

  it('DELETE unlinks: 204, item and marker gone, the count lowered; again 404; the pair links anew', async () => {
    const user = await fx.createUser();
    const body = { provider_id: provider.id, provider_user_id: sub() };
    const linked = await link(user.id, body);
    const del = await fx.call('DELETE', `/users/${user.id}/identities/${linked.body.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect(await identityItem(user.id, linked.body.id)).toBeUndefined();
    expect(await marker(provider.id, body.provider_user_id)).toBeUndefined();
    expect((await fx.item(keys.user(user.id)))?.identity_count).toBe(0);
    const again = await fx.call('DELETE', `/users/${user.id}/identities/${linked.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ code: 'not_found', message: 'Identity not found.' });
    expect((await link(user.id, body)).status).toBe(201);
  });

  it("an unknown user is 404; an unknown provider or another tenant's is 404 naming body.provider_id", async () => {
    const user = await fx.createUser();
    const unknownUser = await link(UNKNOWN_ID, { provider_id: provider.id, provider_user_id: sub() });
    expect(unknownUser.status).toBe(404);
    expect(unknownUser.body).toEqual({ code: 'not_found', message: 'User not found.' });
    expect((await fx.call('GET', `/users/${UNKNOWN_ID}/identities`)).status).toBe(404);
    expect((await fx.call('DELETE', `/users/${UNKNOWN_ID}/identities/${UNKNOWN_ID}`)).status).toBe(404);
    for (const providerId of [UNKNOWN_ID, providerB.id]) {
      const providerUserId = sub();
      const res = await link(user.id, { provider_id: providerId, provider_user_id: providerUserId });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', message: 'body.provider_id: an identity provider was not found.' });
      expect(await marker(providerId, providerUserId)).toBeUndefined();
    }
    expect((await fx.call('GET', `/users/${user.id}/identities`)).body.count).toBe(0);
  });

  it("a tenant-bound caller: another tenant's user is 404 on every identity route, nothing changes", async () => {
    const user = await fx.createUser();
    const body = { provider_id: provider.id, provider_user_id: sub() };
    const linked = await link(user.id, body);
    for (const [method, path, b] of [
      ['GET', `/users/${user.id}/identities`, undefined],
      ['POST', `/users/${user.id}/identities`, { provider_id: provider.id, provider_user_id: sub() }],
      ['POST', `/users/${user.id}/identities`, { provider_id: providerB.id, provider_user_id: sub() }],
      ['DELETE', `/users/${user.id}/identities/${linked.body.id}`, undefined],
    ] as const) {
      const res = await fx.call(method, path, { token: boundB, ...(b ? { body: b } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', message: 'User not found.' });
    }
    expect((await fx.call('GET', `/users/${user.id}/identities`)).body.items).toEqual([linked.body]);
    expect((await marker(provider.id, body.provider_user_id))?.user_id).toBe(user.id);
    // In its own tenant, with its own tenant's provider, it links.
    const own = await fx.createUser({ tenant_id: tenantB });
    const mine = await link(own.id, { provider_id: providerB.id, provider_user_id: sub() }, { token: boundB });
    expect(mine.status).toBe(201);
    expect(mine.body.tenant_id).toBe(tenantB);
  });

  it('expand=all shows identities on the user (an empty list when none), never without it', async () => {
    const user = await fx.createUser();
    const plain = await fx.call('GET', `/users/${user.id}`);
    expect(plain.body.identities).toBeUndefined();
    const empty = await fx.call('GET', `/users/${user.id}?expand=all`);
    expect(empty.status).toBe(200);
    expect(empty.body.identities).toEqual([]);
    expect({ ...empty.body, identities: undefined }).toEqual({ ...plain.body, identities: undefined });
    const linked = await link(user.id, { provider_id: provider.id, provider_user_id: sub() });
    const filled = await fx.call('GET', `/users/${user.id}?expand=all`);
    expect(filled.body.identities).toEqual([{ ...linked.body, provider_data: provider }]);
    const projected = await fx.call('GET', `/users/${user.id}?expand=all&fields=id,identities`);
    expect(projected.body).toEqual({ id: user.id, identities: filled.body.identities });
    const list = await fx.call('GET', `/users?expand=all&q=${encodeURIComponent(`(email=${user.email})`)}`);
    expect(list.body.items).toEqual([filled.body]);
  });

  it('expand=all costs one Query of the user partition (IDENTITY#); none without it', async () => {
    const user = await fx.createUser();
    const { runtime } = fx.svc.stack;
    const callsOf = async (path: string) => {
      const send = vi.spyOn(runtime.db, 'send');
      try {
        expect((await fx.call('GET', path)).status).toBe(200);
        return send.mock.calls.map(([cmd]) => cmd as any);
      } finally {
        send.mockRestore();
      }
    };
    const identityQueries = (calls: any[]) =>
      calls.filter((c) => c instanceof QueryCommand && c.input.ExpressionAttributeValues?.[':prefix'] === keys.identityPrefix);
    const plain = await callsOf(`/users/${user.id}`);
    const expanded = await callsOf(`/users/${user.id}?expand=all`);
    expect(identityQueries(plain)).toEqual([]);
    expect(identityQueries(expanded)).toHaveLength(1);
    expect(identityQueries(expanded)[0].input.ExpressionAttributeValues[':pk']).toBe(`USER#${user.id}`);
    // No identity, so no provider read either (provider_data is read per distinct provider of the page).
    expect(expanded.filter((c) => String(c.input?.Key?.SK ?? '').startsWith('IDP#'))).toEqual([]);
  });

  it('deleting the user removes its identities and their markers; the pair is free again', async () => {
    const user = await fx.createUser();
    const pairs = [sub(), sub()];
    const ids = [];
    for (const p of pairs) ids.push((await link(user.id, { provider_id: provider.id, provider_user_id: p })).body.id);
    expect((await fx.call('DELETE', `/users/${user.id}`)).status).toBe(204);
    for (const [i, p] of pairs.entries()) {
      expect(await identityItem(user.id, ids[i])).toBeUndefined();
      expect(await marker(provider.id, p!)).toBeUndefined();
    }
    const other = await fx.createUser();
    expect((await link(other.id, { provider_id: provider.id, provider_user_id: pairs[0] })).status).toBe(201);
  });

  it(`a user holds at most ${MAX_IDENTITIES_PER_USER} identities, also under concurrent links (409 past it)`, async () => {
    const user = await fx.createUser();
    const results = await Promise.all(
      Array.from({ length: MAX_IDENTITIES_PER_USER + 5 }, () => link(user.id, { provider_id: provider.id, provider_user_id: sub() })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(MAX_IDENTITIES_PER_USER);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    expect(results.find((r) => r.status === 409)!.body.message).toContain('body.provider_user_id');
    expect((await fx.call('GET', `/users/${user.id}/identities?limit=100`)).body.count).toBe(MAX_IDENTITIES_PER_USER);
    expect((await fx.item(keys.user(user.id)))?.identity_count).toBe(MAX_IDENTITIES_PER_USER);
  });

  it('validation: each bad field is a 400 naming it, before anything is read or written', async () => {
    const user = await fx.createUser();
    const cases: [Record<string, unknown> | string, string][] = [
      [{ provider_id: provider.id }, 'body.provider_user_id'],
      [{ provider_user_id: sub() }, 'body.provider_id'],
      [{ provider_id: 'not-a-uuid', provider_user_id: sub() }, 'body.provider_id'],
      [{ provider_id: provider.id, provider_user_id: 'x'.repeat(256) }, 'body.provider_user_id'],
      [{ provider_id: provider.id, provider_user_id: '' }, 'body.provider_user_id'],
      [{ provider_id: provider.id, provider_user_id: 'a\u0000b' }, 'body.provider_user_id'],
      [{ provider_id: provider.id, provider_user_id: 42 }, 'body.provider_user_id'],
      [{ provider_id: provider.id, provider_user_id: sub(), user_id: user.id }, 'body.user_id'],
      ['[]', 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await link(user.id, typeof body === 'string' ? JSON.parse(body) : body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(res.body.message).toContain(field);
    }
    const bigger = await link(user.id, { provider_id: provider.id, provider_user_id: 'y'.repeat(255) });
    expect(bigger.status).toBe(201);
    const badPath = await fx.call('DELETE', `/users/${user.id}/identities/not-a-uuid`);
    expect(badPath.status).toBe(400);
    expect(badPath.body.message).toContain('identity_id');
    expect((await fx.call('GET', `/users/${user.id}/identities?expand=some`)).status).toBe(400);
    expect((await fx.call('GET', `/users/${user.id}/identities`)).body.count).toBe(1);
  });
});
