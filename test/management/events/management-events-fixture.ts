import { randomUUID } from 'node:crypto';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { consentsRepository } from '#shared/store/sessions/consents-repository.ts';
import { passkeysRepository } from '#shared/store/users/passkeys-repository.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { tenantsFixture } from '../../support/management/tenants-fixture.ts';
import { GOOD_PASSWORD } from '../../support/management/users-fixture.ts';
import type { Kind } from '../isolation/isolation-fixture.ts';

/**
 * A multi-tenant local service with two tenants, A and B, each holding one record of every kind
 * the management routes name (made over HTTP by the global Default Client with the `tenant_id`
 * header; a User Grant and a passkey, which no management route makes, through the repositories),
 * and a non-global client of A with every management scope.
 */
export async function managementEventsFixture() {
  const fx = await tenantsFixture();
  const { runtime } = fx.svc.stack;
  const [tenantA, tenantB] = (await Promise.all(
    ['a', 'b'].map(async (t) => (await fx.createTenantApi({ tenant_name: `events-${t}-${randomUUID()}` })).id as string),
  )) as [string, string];

  /** A call of the global client in `tenant`, expecting `status`. */
  const as =
    (tenant: string) =>
    async (method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200) => {
      const res = await fx.call(method, path, { headers: { tenant_id: tenant }, ...(body !== undefined ? { body } : {}) });
      if (res.status !== status) throw new Error(`${method} ${path} in ${tenant}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Record<string, any>;
    };

  async function records(tenant: string, label: string): Promise<Record<Kind, string> & { user_email: string }> {
    const call = as(tenant);
    const [client, resource, role, group, user, provider] = await Promise.all([
      call('POST', '/clients', { client_name: `${label} app`, tenant_id: tenant, is_global: false }),
      call('POST', '/resources', {
        resource_type: 'api',
        resource_name: `${label} api`,
        resource_metadata: { identifier_url: `https://${label}-${randomUUID()}.example.com/` },
      }),
      call('POST', '/roles', { role_name: `${label} role` }),
      call('POST', '/groups', { group_name: `${label} group` }),
      call('POST', '/users', { email: `${label}-${randomUUID().slice(0, 8)}@example.com`, password: GOOD_PASSWORD }),
      call('POST', `/tenants/${tenant}/identity-providers`, {
        provider_name: `${label}-idp`,
        provider_type: 'oidc',
        issuer: `https://${label}-idp.example.com`,
        client_id: `${label}-rp`,
      }),
    ]);
    const scope = await call('POST', `/resources/${resource.id}/scopes`, { scope_name: `${label}:read` });
    const identity = await call('POST', `/users/${user.id}/identities`, { provider_id: provider.id, provider_user_id: `${label}-sub` });
    const grant = await consentsRepository(runtime.db, runtime.config.tableName, runtime.now, oauthDeps(runtime).refreshTokens).saveConsent(
      {
        userId: user.id,
        tenantId: tenant,
        clientId: client.id,
        resourceId: resource.id,
        scopes: [scope.scope_name],
      },
    );
    const passkey = await passkeysRepository(runtime.db, runtime.config.tableName, runtime.now).add({
      user_id: user.id,
      tenant_id: tenant,
      credential_id: Buffer.from(`${label}-credential-${randomUUID()}`).toString('base64url'),
      public_key: Buffer.from('not a real key').toString('base64url'),
      counter: 0,
      device_type: 'multiDevice',
      backed_up: true,
      name: `${label} passkey`,
    });
    return {
      tenant,
      client: client.id,
      resource: resource.id,
      scope: scope.id,
      user: user.id,
      role: role.id,
      group: group.id,
      grant: grant.id,
      provider: provider.id,
      identity: identity.id,
      authenticator: passkey.id,
      user_email: user.email,
    };
  }

  const [a, b] = await Promise.all([records(tenantA, 'a'), records(tenantB, 'b')]);
  const api = (await oauthDeps(runtime).findResource(DEFAULT_TENANT_ID, runtime.config.managementAudience))!;
  const everyScope = Object.values(api.scope_names).sort().join(' ');
  const bound = await fx.boundToken(tenantA, everyScope);
  return { fx, runtime, tenantA, tenantB, a, b, bound: { clientId: bound.client.id as string, token: bound.token }, as };
}

export type ManagementEventsFixture = Awaited<ReturnType<typeof managementEventsFixture>>;
