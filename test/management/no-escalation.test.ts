import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientPermissionsRepository } from '#shared/store/clients/client-permissions-repository.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';

/**
 * docs/contract.md §8 "No escalation": a caller never grants what it does not hold, and a
 * removed scope stops working for tokens already issued within the record cache bound. Over HTTP
 * against the whole local service; every refusal also checks that nothing changed.
 */
let svc: TestService;
let admin: string;
let sys: string;
const scopeIds = new Map<string, string>();

type Answer = { status: number; body: any; headers: Headers };

async function manage(method: string, path: string, body?: unknown, token = admin): Promise<Answer> {
  const res = await fetch(`${svc.url}/identity/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

async function token(id: string, secret: string, audience = svc.managementAudience): Promise<{ access_token: string; scope?: string }> {
  const res = await fetch(`${svc.url}/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(id, secret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', audience }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string };
}

const grantBody = (names: string[]) => ({ permissions: [{ resource_id: sys, scopes: names.map((n) => scopeIds.get(n)!) }] });

/** A confidential client on the management API holding `scopes` (granted by the Default Client), and its token. */
async function clientHolding(scopes: string[]) {
  const made = await manage('POST', '/clients', {
    client_name: `c-${Math.random()}`,
    client_metadata: { grant_types: ['client_credentials'] },
  });
  expect(made.status).toBe(201);
  const id = made.body.id as string;
  expect((await manage('POST', `/clients/${id}/resources`, { resources: [sys] })).status).toBe(204);
  if (scopes.length) expect((await manage('POST', `/clients/${id}/permissions`, grantBody(scopes))).status).toBe(204);
  const secret = made.body.client_secret as string;
  return { id, secret, token: (await token(id, secret)).access_token };
}

/** The scope names a client holds on the management API, as the Default Client reads them. */
async function managementScopesOf(clientId: string): Promise<string[]> {
  const page = await manage('GET', `/clients/${clientId}/permissions?limit=100`);
  expect(page.status).toBe(200);
  const byId = new Map([...scopeIds].map(([name, id]) => [id, name]));
  return page.body.items
    .filter((p: any) => p.resource_id === sys)
    .map((p: any) => byId.get(p.scope_id))
    .sort();
}

function expectInsufficientScope(r: Answer, scope: string): void {
  expect(r.status).toBe(403);
  expect(r.body.code).toBe('insufficient_scope');
  expect(r.body.message).toContain(scope);
  expect(r.headers.get('www-authenticate')).toContain(`scope="${scope}"`);
}

beforeAll(async () => {
  svc = await startTestService();
  admin = await svc.managementToken();
  const resources = await manage('GET', '/resources?limit=100');
  sys = resources.body.items.find((r: any) => r.resource_metadata.is_system).id;
  const scopes = await manage('GET', `/resources/${sys}/scopes?limit=100`);
  for (const s of scopes.body.items) scopeIds.set(s.scope_name, s.id);
});
afterAll(async () => svc?.stop());

describe('docs/contract.md §8 no escalation: client permissions (client side)', () => {
  it('read:clients update:clients cannot grant itself every management scope, nor then read the Default Client secret', async () => {
    const attacker = await clientHolding(['read:clients', 'update:clients']);
    const every = [...scopeIds.keys()];
    const tried = await manage('POST', `/clients/${attacker.id}/permissions`, grantBody(every), attacker.token);
    // the first missing scope in sort order
    const firstMissing = every.filter((s) => s !== 'read:clients' && s !== 'update:clients').sort()[0]!;
    expectInsufficientScope(tried, firstMissing);
    expect(await managementScopesOf(attacker.id)).toEqual(['read:clients', 'update:clients']);
    // a fresh token carries nothing more, and the Default Client's secret stays hidden
    const fresh = await token(attacker.id, attacker.secret);
    const def = await manage('GET', `/clients/${svc.clientId}`, undefined, fresh.access_token);
    expect(def.status).toBe(200);
    expect(def.body.client_secret).toBeUndefined();
  });

  it('a batch with one scope the caller lacks is refused whole: nothing is granted, on any resource', async () => {
    const granter = await clientHolding(['read:clients', 'update:clients', 'read:resources']);
    const other = await clientHolding([]);
    const api = await manage('POST', '/resources', {
      resource_type: 'api',
      resource_name: 'orders',
      resource_metadata: { identifier_url: `https://orders-${Math.random()}.example/api` },
    });
    const scope = await manage('POST', `/resources/${api.body.id}/scopes`, { scope_name: 'read:orders' });
    expect((await manage('POST', `/clients/${other.id}/resources`, { resources: [api.body.id] })).status).toBe(204);
    const tried = await manage(
      'POST',
      `/clients/${other.id}/permissions`,
      {
        permissions: [
          { resource_id: api.body.id, scopes: [scope.body.id] },
          ...grantBody(['read:clients', 'read:resources', 'delete:clients']).permissions,
        ],
      },
      granter.token,
    );
    expectInsufficientScope(tried, 'delete:clients');
    const after = await manage('GET', `/clients/${other.id}/permissions?limit=100`);
    expect(after.body.items).toEqual([]);
  });

  it("a caller holding every scope it grants succeeds, and the grantee's token carries them", async () => {
    const granter = await clientHolding(['read:clients', 'update:clients', 'read:resources']);
    const other = await clientHolding([]);
    expect(
      (await manage('POST', `/clients/${other.id}/permissions`, grantBody(['read:clients', 'read:resources']), granter.token)).status,
    ).toBe(204);
    expect(await managementScopesOf(other.id)).toEqual(['read:clients', 'read:resources']);
    const minted = await token(other.id, other.secret);
    expect(
      JSON.parse(Buffer.from(minted.access_token.split('.')[1]!, 'base64url').toString())
        .scope.split(' ')
        .sort(),
    ).toEqual(['read:clients', 'read:resources']);
  });

  it('scopes of a non-management resource are not management scopes: granting them needs only update:clients', async () => {
    const granter = await clientHolding(['update:clients']);
    const other = await clientHolding([]);
    const api = await manage('POST', '/resources', {
      resource_type: 'api',
      resource_name: 'billing',
      resource_metadata: { identifier_url: `https://billing-${Math.random()}.example/api` },
    });
    const scope = await manage('POST', `/resources/${api.body.id}/scopes`, { scope_name: 'write:invoices' });
    expect((await manage('POST', `/clients/${other.id}/resources`, { resources: [api.body.id] })).status).toBe(204);
    const granted = await manage(
      'POST',
      `/clients/${other.id}/permissions`,
      { permissions: [{ resource_id: api.body.id, scopes: [scope.body.id] }] },
      granter.token,
    );
    expect(granted.status).toBe(204);
    const minted = await token(other.id, other.secret, api.body.resource_metadata.identifier_url);
    expect(JSON.parse(Buffer.from(minted.access_token.split('.')[1]!, 'base64url').toString()).scope).toBe('write:invoices');
  });
});

describe('docs/contract.md §8 no escalation: resource side and other paths', () => {
  it('authorizing a client on the management API (POST /resources/{id}/clients) passes on no scope', async () => {
    const linker = await clientHolding(['read:resources', 'update:resources']);
    const made = await manage('POST', '/clients', { client_name: 'linked', client_metadata: { grant_types: ['client_credentials'] } });
    // Linking needs every management scope (management-api-links.test.ts): the Default Client links it.
    expect((await manage('POST', `/resources/${sys}/clients`, { clients: [made.body.id] })).status).toBe(204);
    expect(await managementScopesOf(made.body.id)).toEqual([]);
    const linked = await token(made.body.id, made.body.client_secret);
    const claims = JSON.parse(Buffer.from(linked.access_token.split('.')[1]!, 'base64url').toString());
    expect(claims.scope ?? '').toBe('');
    expectInsufficientScope(await manage('GET', '/clients', undefined, linked.access_token), 'read:clients');
    // and the linker cannot grant it anything: it lacks update:clients
    expectInsufficientScope(
      await manage('POST', `/clients/${made.body.id}/permissions`, grantBody(['read:resources']), linker.token),
      'update:clients',
    );
    expect(await managementScopesOf(made.body.id)).toEqual([]);
  });

  it("the management API's scopes cannot be renamed or removed, so no held scope can become another", async () => {
    const editor = await clientHolding(['read:resources', 'update:resources']);
    const rename = await manage(
      'PATCH',
      `/resources/${sys}/scopes/${scopeIds.get('read:resources')}`,
      { scope_name: 'zz:renamed' },
      editor.token,
    );
    expect(rename.status).toBe(403);
    const removed = await manage('DELETE', `/resources/${sys}/scopes/${scopeIds.get('delete:clients')}`, undefined, editor.token);
    expect(removed.status).toBe(403);
    const scopes = await manage('GET', `/resources/${sys}/scopes?limit=100`);
    expect(scopes.body.items.map((s: any) => s.scope_name).sort()).toEqual([...scopeIds.keys()].sort());
  });
});

describe('a removed scope does not outlive its removal (docs/contract.md §8, docs/security.md)', () => {
  it('a token minted with a scope stops carrying it once the permission is revoked (same container: at once)', async () => {
    const holder = await clientHolding(['read:clients', 'update:clients', 'delete:clients']);
    const victim = await clientHolding([]);
    // the Default Client takes delete:clients away; the holder's token still says it has it
    const body = grantBody(['delete:clients']);
    expect((await manage('DELETE', `/clients/${holder.id}/permissions`, body)).status).toBe(204);
    expectInsufficientScope(await manage('DELETE', `/clients/${victim.id}`, undefined, holder.token), 'delete:clients');
    expect((await manage('GET', `/clients/${victim.id}`)).status).toBe(200);
    // nor can it pass the removed scope on
    expectInsufficientScope(await manage('POST', `/clients/${victim.id}/permissions`, body, holder.token), 'delete:clients');
    expect(await managementScopesOf(victim.id)).toEqual([]);
    // what it still holds keeps working
    expect((await manage('GET', `/clients/${victim.id}`, undefined, holder.token)).status).toBe(200);
    // unlinking the management API takes everything
    expect((await manage('DELETE', `/clients/${holder.id}/resources`, { resources: [sys] })).status).toBe(204);
    expectInsufficientScope(await manage('GET', `/clients/${victim.id}`, undefined, holder.token), 'read:clients');
  });

  it('changed by another container, the removal takes effect within RECORD_CACHE_TTL_SECONDS (1 s)', async () => {
    const holder = await clientHolding(['read:clients']);
    expect((await manage('GET', '/clients?limit=1', undefined, holder.token)).status).toBe(200); // now cached here
    // Another container's write: straight to the table, so this container's cache is not told.
    const { runtime } = svc.stack;
    await clientPermissionsRepository(runtime.db, runtime.config.tableName, runtime.now).revoke(
      holder.id,
      grantBody(['read:clients']).permissions,
    );
    await new Promise((r) => setTimeout(r, runtime.config.recordCacheTtlMs + 100));
    expectInsufficientScope(await manage('GET', '/clients?limit=1', undefined, holder.token), 'read:clients');
  });
});

describe('docs/contract.md §8 no takeover: setting a principal credentials needs the scopes it holds', () => {
  /** A user made through the API holding `scopes` on the management API directly (none: a plain user). */
  async function userHolding(scopes: string[]) {
    const made = await manage('POST', '/users', { email: `t-${Math.random()}@example.com`, password: 'Quartz-Lantern-88-Meadow' });
    expect(made.status).toBe(201);
    if (scopes.length) expect((await manage('POST', `/users/${made.body.id}/permissions`, grantBody(scopes))).status).toBe(204);
    return made.body.id as string;
  }
  const storedUser = async (id: string) => {
    const { runtime } = svc.stack;
    return (await runtime.db.send(new GetCommand({ TableName: runtime.config.tableName, Key: keys.user(id), ConsistentRead: true }))).Item;
  };

  it('update:users cannot set the password, authenticator or email of a user holding more, nor get its password-change ticket', async () => {
    const helpdesk = await clientHolding(['read:users', 'update:users', 'create:tickets']);
    const adminUser = await userHolding(['read:clients', 'update:users']);
    const before = await storedUser(adminUser);
    const as = (method: string, path: string, body?: unknown) => manage(method, path, body, helpdesk.token);
    expectInsufficientScope(await as('PUT', `/users/${adminUser}/password`, { password: 'Another-Long-Passphrase-42' }), 'read:clients');
    // Enrolment is the user's own (docs/users.md "TOTP"): 403 for any other caller.
    expect((await as('POST', `/users/${adminUser}/otp`)).status).toBe(403);
    expectInsufficientScope(await as('DELETE', `/users/${adminUser}/otp`), 'read:clients');
    expectInsufficientScope(await as('PATCH', `/users/${adminUser}`, { email: 'attacker@example.com' }), 'read:clients');
    expectInsufficientScope(await as('POST', '/tickets/password-change', { user_id: adminUser }), 'read:clients');
    // Nothing changed: the same hash, email, no authenticator, no new version.
    const after = await storedUser(adminUser);
    expect(after).toMatchObject({
      password_hash: before?.password_hash,
      email: before?.email,
      version: before?.version,
      otp_enrolled: false,
    });
    // What is no way in stays allowed: a profile field, and the email verification ticket.
    expect((await as('PATCH', `/users/${adminUser}`, { name: 'Renamed' })).status).toBe(200);
    expect((await as('POST', '/tickets/email-verification', { user_id: adminUser })).status).toBe(201);
    // A user holding nothing more than the caller: allowed.
    const plain = await userHolding([]);
    expect((await as('PUT', `/users/${plain}/password`, { password: 'Another-Long-Passphrase-42' })).status).toBe(204);
    expect((await as('POST', '/tickets/otp-enrollment', { user_id: plain })).status).toBe(201);
    expect((await as('PATCH', `/users/${plain}`, { email: `moved-${Math.random()}@example.com` })).status).toBe(200);
    // And a caller holding every scope the user holds may.
    const admin2 = await clientHolding(['read:users', 'update:users', 'read:clients']);
    expect((await manage('PUT', `/users/${adminUser}/password`, { password: 'Another-Long-Passphrase-42' }, admin2.token)).status).toBe(
      204,
    );
  });

  it('update:client_keys cannot change the secret of a client holding more; its own, or one holding less, it can', async () => {
    const keyKeeper = await clientHolding(['read:clients', 'update:clients', 'update:client_keys']);
    const powerful = await clientHolding(['read:clients', 'delete:clients']);
    const secretBefore = (await manage('GET', `/clients/${powerful.id}`)).body.updated_at;
    expectInsufficientScope(await manage('POST', `/clients/${powerful.id}/secret`, undefined, keyKeeper.token), 'delete:clients');
    expectInsufficientScope(await manage('POST', `/clients/${svc.clientId}/secret`, undefined, keyKeeper.token), 'create:clients');
    expect((await manage('GET', `/clients/${powerful.id}`)).body.updated_at).toBe(secretBefore);
    // The old secret still works.
    expect((await token(powerful.id, powerful.secret)).access_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const weak = await clientHolding(['read:clients']);
    expect((await manage('POST', `/clients/${weak.id}/secret`, undefined, keyKeeper.token)).status).toBe(200);
    expect((await manage('POST', `/clients/${keyKeeper.id}/secret`, undefined, keyKeeper.token)).status).toBe(200);
  });
});
