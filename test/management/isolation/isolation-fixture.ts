import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { passkeysRepository } from '#shared/store/users/passkeys-repository.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { CookieJar, csrfIn } from '../../support/browser/pages-fixture.ts';
import type { CallOptions, Reply } from '../../support/management/clients-fixture.ts';
import { tenantsFixture } from '../../support/management/tenants-fixture.ts';
import { GOOD_PASSWORD } from '../../support/management/users-fixture.ts';
import { pkce, REDIRECT } from '../../support/oauth/authorize-flow.ts';
import { basicAuth } from '../../support/service/local-service.ts';

/** The kinds of record a path parameter or a body may name (walk-table.ts fills them). */
export const KINDS = [
  'tenant',
  'client',
  'resource',
  'scope',
  'user',
  'role',
  'group',
  'grant',
  'provider',
  'identity',
  'authenticator',
] as const;
export type Kind = (typeof KINDS)[number];

/** The ids of one tenant's records, by kind. */
export type Ids = Record<Kind, string | undefined>;

export interface Caller {
  name: string;
  token: string;
}

/**
 * Two tenants of one multi-tenant local service (docs/contract.md §4): B holds one record of every
 * kind, each with its links (made by the global Default Client with the `tenant_id` header, and a
 * User Grant by a real login through the hosted pages); A holds its own records and the callers
 * bound to it: a non-global client of A and a user of A, each with every management scope, and a
 * tenant admin of A.
 */
export async function isolationFixture() {
  const fx = await tenantsFixture();
  const { runtime } = fx.svc.stack;
  const url = fx.svc.url;
  const [tenantA, tenantB] = (await Promise.all(
    ['a', 'b'].map(async (t) => (await fx.createTenantApi({ tenant_name: `walk-${t}-${randomUUID()}` })).id as string),
  )) as [string, string];
  const api = (await oauthDeps(runtime).findResource(DEFAULT_TENANT_ID, runtime.config.managementAudience))!;
  const everyScope = Object.values(api.scope_names).sort();
  const everyScopeId = Object.keys(api.scope_names);

  /** A call of the global client in `tenant`, expecting `status`. */
  const as =
    (tenant: string) =>
    async (method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200) => {
      const res = await fx.call(method, path, { headers: { tenant_id: tenant }, ...(body !== undefined ? { body } : {}) });
      if (res.status !== status) throw new Error(`${method} ${path} in ${tenant}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Record<string, any>;
    };

  /** The records of one tenant: a client, a resource and scope, a role, a group with a nested group, a user with a password, all linked. */
  async function records(tenant: string, label: string) {
    const call = as(tenant);
    const [client, resource, role, group, child, user] = await Promise.all([
      call('POST', '/clients', {
        client_name: `${label} app`,
        tenant_id: tenant,
        is_global: false,
        client_metadata: {
          grant_types: ['authorization_code', 'refresh_token', 'client_credentials', 'password'],
          urls: { redirect_uris: [REDIRECT] },
        },
      }),
      call('POST', '/resources', {
        resource_type: 'api',
        resource_name: `${label} api`,
        resource_metadata: { identifier_url: `https://${label}-${randomUUID()}.example.com/` },
      }),
      call('POST', '/roles', { role_name: `${label} role` }),
      call('POST', '/groups', { group_name: `${label} group` }),
      call('POST', '/groups', { group_name: `${label} child group` }),
      call('POST', '/users', {
        email: `${label}-${randomUUID().slice(0, 8)}@example.com`,
        username: `${label}_user_${randomUUID().slice(0, 8)}`,
        password: GOOD_PASSWORD,
      }),
    ]);
    const scope = await call('POST', `/resources/${resource.id}/scopes`, { scope_name: `${label}:read` });
    const permission = { permissions: [{ resource_id: resource.id, scopes: [scope.id] }] };
    await Promise.all([
      call('POST', `/clients/${client.id}/resources`, { resources: [resource.id] }, 204).then(() =>
        call('POST', `/clients/${client.id}/permissions`, permission, 204),
      ),
      call('POST', `/roles/${role.id}/permissions`, permission, 204),
      call('POST', `/users/${user.id}/permissions`, permission, 204),
      call('POST', `/roles/${role.id}/members`, { users: [user.id] }, 204),
      call('POST', `/groups/${group.id}/members`, { users: [user.id] }, 204)
        .then(() => call('POST', `/groups/${group.id}/roles`, { roles: [role.id] }, 204))
        .then(() => call('POST', `/groups/${group.id}/groups`, { groups: [child.id] }, 204)),
      call('POST', `/tenants/${tenant}/admins`, { users: [user.id] }, 204),
    ]);
    const provider = await call('POST', `/tenants/${tenant}/identity-providers`, {
      provider_name: `${label}-idp`,
      provider_type: 'oidc',
      issuer: `https://${label}-idp.example.com`,
      client_id: `${label}-rp`,
      client_secret: `${label}-secret-${randomUUID()}`,
    });
    const identity = await call('POST', `/users/${user.id}/identities`, { provider_id: provider.id, provider_user_id: `${label}-sub` });
    return { client, resource, scope, role, group, child, user, provider, identity };
  }

  const [b, a] = await Promise.all([records(tenantB, 'b'), records(tenantA, 'a')]);

  // A User Grant of B's user, through the real pages (/authorize, /login, /consent, the code at
  // /token), before it enrols an authenticator with its own token (docs/contract.md §7.6); a User
  // Grant of A's user; the callers bound to A: a non-global client of A and a user of A, each with
  // every management scope, and a tenant admin of A.
  const inB = async () => {
    const tokens = await loginThroughPages(url, b.client, b.resource.resource_metadata.identifier_url, b.scope.scope_name, b.user.username);
    const grants = await as(tenantB)('GET', `/users/${b.user.id}/grants`);
    expect(grants.items).toHaveLength(1);
    const enrolled = await fx.call('POST', `/users/${b.user.id}/otp`, {
      token: await fx.userToken(b.user.id),
      body: { password: GOOD_PASSWORD },
    });
    expect(enrolled.status).toBe(201);
    const ticket = await as(tenantB)('POST', '/tickets/password-change', { user_id: b.user.id });
    return { tokens, grant: grants.items[0].id as string, ticket };
  };
  const inA = async () => {
    await loginThroughPages(url, a.client, a.resource.resource_metadata.identifier_url, a.scope.scope_name, a.user.username);
    return (await as(tenantA)('GET', `/users/${a.user.id}/grants`)).items[0].id as string;
  };
  const callersOfA = async () => {
    const [client, admin] = await Promise.all([
      fx.createClient({
        client_name: 'a caller',
        tenant_id: tenantA,
        is_global: false,
        client_metadata: { grant_types: ['client_credentials', 'password'] },
      }),
      as(tenantA)('POST', '/users', { username: `a_admin_${randomUUID().slice(0, 8)}`, password: GOOD_PASSWORD }),
    ]);
    const clientToken = await fx.clientToken(client, everyScope.join(' '));
    await as(tenantA)('POST', `/users/${admin.id}/permissions`, { permissions: [{ resource_id: api.id, scopes: everyScopeId }] }, 204);
    const userToken = await passwordToken(url, client, admin.username, runtime.config.managementAudience, everyScope.join(' '));
    // A tenant admin of A (docs/tenants.md "Tenant admins"): every management scope but creating and deleting tenants.
    const tenantAdmin = await as(tenantA)('POST', '/users', {
      username: `a_tenant_admin_${randomUUID().slice(0, 8)}`,
      password: GOOD_PASSWORD,
    });
    await as(tenantA)('POST', `/tenants/${tenantA}/admins`, { users: [tenantAdmin.id] }, 204);
    const adminScopes = everyScope.filter((s) => s !== 'create:tenants' && s !== 'delete:tenants').join(' ');
    const tenantAdminToken = await passwordToken(url, client, tenantAdmin.username, runtime.config.managementAudience, adminScopes);
    return { client, admin, tenantAdmin, clientToken, userToken, tenantAdminToken };
  };
  // One after the other: each holds an argon2id check (docs/contract.md §7.2), and several at once on
  // a loaded machine can outlast the pages function's timeout (a 503 that is not the test's).
  const ofB = await inB();
  const aGrant = await inA();
  // A passkey of B's user, after its sign-in through the pages (with one, the pages would ask for
  // it after the password). No management route adds one: people add their own on the pages. A's
  // users keep signing in with passwords in the tests, so A's id of this kind names nothing.
  const bPasskey = await passkeysRepository(runtime.db, runtime.config.tableName, runtime.now).add({
    user_id: b.user.id,
    tenant_id: tenantB,
    credential_id: Buffer.from(`b-credential-${randomUUID()}`).toString('base64url'),
    public_key: Buffer.from('not a real key').toString('base64url'),
    counter: 0,
    device_type: 'multiDevice',
    backed_up: true,
    name: 'b passkey',
  });
  const callers = await callersOfA();

  const idsOf = (t: typeof a, tenant: string, authenticator: string, grant?: string): Ids => ({
    tenant,
    client: t.client.id,
    resource: t.resource.id,
    scope: t.scope.id,
    user: t.user.id,
    role: t.role.id,
    group: t.group.id,
    grant,
    provider: t.provider.id,
    identity: t.identity.id,
    authenticator,
  });

  return {
    fx,
    url,
    tenantA,
    tenantB,
    a,
    b: { ...b, ...ofB },
    aIds: idsOf(a, tenantA, randomUUID(), aGrant),
    bIds: idsOf(b, tenantB, bPasskey.id, ofB.grant),
    aCallerClient: callers.client,
    aAdmin: callers.admin,
    aTenantAdmin: callers.tenantAdmin,
    callers: [
      { name: 'a non-global client of A', token: callers.clientToken },
      { name: 'a user of A holding every management scope (password grant)', token: callers.userToken },
      { name: 'a tenant admin of A (password grant)', token: callers.tenantAdminToken },
    ] satisfies Caller[],
    call: (method: string, path: string, options: CallOptions = {}): Promise<Reply> => fx.call(method, path, options),
    /** Every item of the table, sorted by key: the stored state the walk must leave as it was. */
    async snapshot() {
      const items: Record<string, unknown>[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await runtime.db.send(
          new ScanCommand({ TableName: runtime.config.tableName, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }),
        );
        items.push(...(page.Items ?? []));
        start = page.LastEvaluatedKey;
      } while (start);
      return items.sort((x, y) => `${x.PK}|${x.SK}`.localeCompare(`${y.PK}|${y.SK}`));
    },
    stop: () => fx.stop(),
  };
}

export type IsolationFixture = Awaited<ReturnType<typeof isolationFixture>>;

/** POST /token grant_type=password as `client`; expects 200 and returns the access token. */
async function passwordToken(url: string, client: Record<string, any>, username: string, audience: string, scope: string) {
  const res = await fetch(`${url}/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(client.id, client.client_secret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password: GOOD_PASSWORD, audience, scope }),
  });
  const body = (await res.json()) as Record<string, any>;
  if (res.status !== 200) throw new Error(`password grant: ${res.status} ${JSON.stringify(body)}`);
  expect(body.scope.split(' ').sort()).toEqual(scope.split(' ').sort());
  return body.access_token as string;
}

/**
 * A user's login through the hosted pages (docs/browser-flows.md), consenting to `client` for
 * `audience`: /authorize → /login → /consent → the client's redirect, then the code at /token.
 */
export async function loginThroughPages(url: string, client: Record<string, any>, audience: string, scope: string, username: string) {
  const jar = new CookieJar(url);
  const { verifier, challenge } = await pkce();
  const started = await jar.get(
    `/authorize?${new URLSearchParams({
      client_id: client.id,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: `openid offline_access ${scope}`,
      audience,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'walk',
    })}`,
  );
  expect(started.status, started.text).toBe(303);
  const loginUrl = started.location!;
  const form = await jar.get(loginUrl);
  const signedIn = await jar.post(loginUrl, { csrf_token: csrfIn(form.text), username, password: GOOD_PASSWORD });
  expect(signedIn.status, signedIn.text).toBe(303);
  const consent = await jar.get(signedIn.location!);
  expect(consent.status, consent.text).toBe(200);
  const decided = await jar.post(signedIn.location!, { csrf_token: csrfIn(consent.text), decision: 'allow' });
  expect(decided.status).toBe(303);
  const resumed = await jar.get(decided.location!);
  expect(resumed.status).toBe(303);
  const code = new URL(resumed.location!).searchParams.get('code')!;
  const res = await fetch(`${url}/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(client.id, client.client_secret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }),
  });
  const body = (await res.json()) as Record<string, any>;
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body.refresh_token).toEqual(expect.any(String));
  return body as { access_token: string; refresh_token: string; id_token: string };
}
