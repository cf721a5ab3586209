import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientDeps } from '#shared/management/clients/client-deps.ts';
import { updateClient } from '#shared/management/clients/update-client.ts';
import type { ManagementAccess } from '#shared/management/kit/access.ts';
import type { TokenResource } from '#shared/oauth/oauth-deps.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { MANAGEMENT_SCOPES } from '#shared/routes/management-scopes.ts';
import { clientDeps } from '#shared/wiring/clients.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { type UsersFixture, usersFixture } from '../../support/management/users-fixture.ts';
import type { Reply } from '../../support/service/management-api.ts';

/**
 * Linking a client to the management API, and changing who receives the tokens of a linked
 * client, need every management scope (docs/security.md "The management API"), over HTTP: a
 * refusal is 403 insufficient_scope naming the first missing scope, and nothing is stored.
 */
let fx: UsersFixture;
let api: TokenResource;
let everyScope: string[];
const EVIL = 'https://attacker.example/cb';

beforeAll(async () => {
  fx = await usersFixture();
  api = (await oauthDeps(fx.svc.stack.runtime).findResource(DEFAULT_TENANT_ID, fx.svc.managementAudience))!;
  everyScope = [...MANAGEMENT_SCOPES].sort();
});
afterAll(async () => fx?.stop());

/** A management token of a fresh client holding exactly `scopes` (granted by the Default Client). */
async function callerHolding(scopes: string[]): Promise<string> {
  const c = await fx.createClient({ client_metadata: { grant_types: ['client_credentials'] } });
  return fx.clientToken(c, scopes.join(' '));
}

function expectRefused(reply: Reply, held: string[]): void {
  const firstMissing = everyScope.filter((s) => !held.includes(s))[0]!;
  expect(reply.status, JSON.stringify(reply.body)).toBe(403);
  expect(reply.body).toEqual({ code: 'insufficient_scope', message: `The access token lacks the scope ${firstMissing}.` });
  expect(reply.headers.get('www-authenticate')).toContain(`scope="${firstMissing}"`);
}

/** The resource ids the client is authorized on, as the Default Client reads them. */
async function linksOf(clientId: string): Promise<string[]> {
  const page = await fx.call('GET', `/clients/${clientId}/resources?limit=100`);
  expect(page.status).toBe(200);
  return page.body.items.map((l: Record<string, string>) => l.resource_id);
}

describe('linking a client to the management API needs every management scope', () => {
  const held = ['read:clients', 'update:clients', 'read:resources', 'update:resources'];

  it('from the client side: 403 and nothing linked, also for a batch with an ordinary resource', async () => {
    const linker = await callerHolding(held);
    const target = await fx.createClient({ client_metadata: { grant_types: ['client_credentials'] } });
    const ordinary = await fx.createResource(['read']);

    expectRefused(await fx.call('POST', `/clients/${target.id}/resources`, { token: linker, body: { resources: [api.id] } }), held);
    expectRefused(
      await fx.call('POST', `/clients/${target.id}/resources`, { token: linker, body: { resources: [ordinary.id, api.id] } }),
      held,
    );
    expect(await linksOf(target.id)).toEqual([]);
    expect((await fx.call('GET', `/clients/${target.id}`)).body.aggregations).toMatchObject({ resources: 0, permissions: 0 });
    // Not linked, so no management token for it.
    expect((await fx.token(target.id, target.client_secret, fx.svc.managementAudience)).body.error).toBe('invalid_target');

    // An ordinary resource still needs only update:clients / update:resources.
    expect((await fx.call('POST', `/clients/${target.id}/resources`, { token: linker, body: { resources: [ordinary.id] } })).status).toBe(
      204,
    );
    expect(await linksOf(target.id)).toEqual([ordinary.id]);
  });

  it('from the resource side: 403 and nothing linked', async () => {
    const linker = await callerHolding(held);
    const target = await fx.createClient();
    expectRefused(await fx.call('POST', `/resources/${api.id}/clients`, { token: linker, body: { clients: [target.id] } }), held);
    expect(await linksOf(target.id)).toEqual([]);
    const linked = await fx.call('GET', `/resources/${api.id}/clients?limit=100`);
    expect(linked.body.items.map((l: Record<string, string>) => l.client_id)).not.toContain(target.id);
  });

  it('a caller holding every management scope links, from either side (a scope someone added to the resource gates nothing)', async () => {
    const added = await fx.call('POST', `/resources/${api.id}/scopes`, { body: { scope_name: `extra:${Date.now()}` } });
    expect(added.status).toBe(201);
    const holder = await callerHolding(everyScope);
    const a = await fx.createClient();
    const b = await fx.createClient();
    expect((await fx.call('POST', `/clients/${a.id}/resources`, { token: holder, body: { resources: [api.id] } })).status).toBe(204);
    expect((await fx.call('POST', `/resources/${api.id}/clients`, { token: holder, body: { clients: [b.id] } })).status).toBe(204);
    expect(await linksOf(a.id)).toEqual([api.id]);
    expect(await linksOf(b.id)).toEqual([api.id]);
  });
});

describe("who receives a linked client's tokens is every management scope's business", () => {
  const held = ['read:clients', 'update:clients', 'update:client_keys'];
  const appUris = ['https://app.example/cb'];

  async function linkedClient(body: Record<string, unknown> = {}) {
    const c = await fx.createClient({
      client_metadata: { grant_types: ['authorization_code', 'refresh_token'], urls: { redirect_uris: appUris } },
      ...body,
    });
    expect((await fx.call('POST', `/clients/${c.id}/resources`, { body: { resources: [api.id] } })).status).toBe(204);
    return c;
  }
  const stored = async (id: string) => (await fx.call('GET', `/clients/${id}`)).body;

  it('update:clients cannot make a linked client public or first party, add a redirect URI or a grant type: 403, nothing changes', async () => {
    const editor = await callerHolding(held);
    const linked = await linkedClient();
    const linkedPublic = await linkedClient({ is_public: true });
    const before = await stored(linked.id);
    const beforePublic = await stored(linkedPublic.id);
    const defaultBefore = await stored(fx.svc.clientId);
    const patch = (id: string, body: Record<string, unknown>) => fx.call('PATCH', `/clients/${id}`, { token: editor, body });

    for (const body of [
      { is_public: true },
      { is_first_party: !before.is_first_party },
      { client_metadata: { urls: { redirect_uris: [...appUris, EVIL] } } },
      { client_metadata: { urls: { redirect_uris: [] } } },
      { client_metadata: { grant_types: ['authorization_code', 'refresh_token', 'implicit'] } },
      { is_public: true, client_metadata: { grant_types: ['implicit'], urls: { redirect_uris: [EVIL] } } },
    ]) {
      expectRefused(await patch(linked.id, body), held);
    }
    // Public to confidential (a new secret, update:client_keys) is refused the same way.
    expectRefused(await patch(linkedPublic.id, { is_public: false }), held);
    // The Default Client is linked too.
    expectRefused(await patch(fx.svc.clientId, { client_metadata: { urls: { redirect_uris: [EVIL] } } }), held);
    expectRefused(await patch(fx.svc.clientId, { client_metadata: { grant_types: ['client_credentials', 'password'] } }), held);

    expect(await stored(linked.id)).toEqual(before);
    expect(await stored(linkedPublic.id)).toEqual(beforePublic);
    expect(await stored(fx.svc.clientId)).toEqual(defaultBefore);
  });

  it('what does not decide who receives tokens stays update:clients; an unlinked client stays free; every scope may change a linked one', async () => {
    const editor = await callerHolding(held);
    const linked = await linkedClient();
    const renamed = await fx.call('PATCH', `/clients/${linked.id}`, {
      token: editor,
      body: { client_name: 'renamed', client_metadata: { urls: { redirect_uris: appUris, post_logout_redirect_uris: appUris } } },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.client_name).toBe('renamed');

    const unlinked = await fx.createClient({ client_metadata: { grant_types: ['authorization_code'], urls: { redirect_uris: appUris } } });
    const flipped = await fx.call('PATCH', `/clients/${unlinked.id}`, {
      token: editor,
      body: { is_public: true, is_first_party: true, client_metadata: { grant_types: ['implicit'], urls: { redirect_uris: [EVIL] } } },
    });
    expect(flipped.status, JSON.stringify(flipped.body)).toBe(200);
    expect(flipped.body).toMatchObject({ is_public: true, is_first_party: true, client_metadata: { grant_types: ['implicit'] } });

    const holder = await callerHolding(everyScope);
    const moved = await fx.call('PATCH', `/clients/${linked.id}`, {
      token: holder,
      body: { client_metadata: { urls: { redirect_uris: ['https://app.example/new'] } } },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.client_metadata.urls.redirect_uris).toEqual(['https://app.example/new']);
  });
});

describe('a link made while a PATCH is under way', () => {
  it('between the check and the write: the write fails on the links version, the PATCH is checked again and refused', async () => {
    const c = await fx.createClient({
      client_metadata: { grant_types: ['authorization_code'], urls: { redirect_uris: ['https://app.example/cb'] } },
    });
    const real = clientDeps(fx.svc.stack.runtime);
    // The real deps and store; only the moment is forced: another caller's link lands after the
    // first attempt's checks passed and before its write.
    let interleaved = false;
    const deps: ClientDeps = {
      ...real,
      clients: {
        ...real.clients,
        update: (id, patch, actor, options = {}) =>
          real.clients.update(id, patch, actor, {
            ...options,
            validate: async (current, next) => {
              await options.validate?.(current, next);
              if (interleaved) return;
              interleaved = true;
              await real.links.authorize(id, [api.id], fx.svc.clientId);
            },
          }),
      },
    };
    const editor: ManagementAccess = {
      ctx: { actor: 'editor', tenantId: DEFAULT_TENANT_ID, isGlobal: true, scopes: new Set(['read:clients', 'update:clients']) },
      readsKeys: false,
      rotatesKeys: false,
    };
    const body = { client_metadata: { urls: { redirect_uris: [EVIL] } } };
    await expect(updateClient(deps, editor, c.id, body, { fields: undefined, expand: false })).rejects.toMatchObject({
      status: 403,
      code: 'insufficient_scope',
    });
    expect(interleaved).toBe(true);
    const stored = await fx.call('GET', `/clients/${c.id}`);
    expect(stored.body.client_metadata.urls.redirect_uris).toEqual(['https://app.example/cb']);
    expect(await linksOf(c.id)).toEqual([api.id]);
  });
});
