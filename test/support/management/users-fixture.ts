import { randomUUID } from 'node:crypto';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { clientsFixture, DEFAULT_TENANT } from './clients-fixture.ts';

/** A password the rules of docs/contract.md §7.2 accept (long, not common). */
export const GOOD_PASSWORD = 'correct-Horse-battery-9137';

/**
 * The Clients fixture plus what the Users tests need: `createUser` over HTTP and `userToken`, a
 * management-API access token of a user as the user-token core mints them (RFC 9068: `sub` = user
 * id, `client_id` = the client it was issued to), signed with the service's own current key.
 */
export async function usersFixture(env: Record<string, string> = {}) {
  const fx = await clientsFixture(env);
  const { runtime } = fx.svc.stack;
  let n = 0;
  return {
    ...fx,
    /** POST /users with a fresh email, expecting 201. */
    async createUser(body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
      const res = await fx.call('POST', '/users', {
        body: { email: `user${++n}-${randomUUID().slice(0, 8)}@example.com`, ...body },
        headers,
      });
      if (res.status !== 201) throw new Error(`create user: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Record<string, any>;
    },
    /**
     * A client_credentials management token of `client` holding `scopes` for real: the Default
     * Client authorizes it on the management API and grants them (as clients-tenancy.test.ts does).
     */
    async clientToken(client: Record<string, any>, scopes: string): Promise<string> {
      const api = await oauthDeps(runtime).findResource(DEFAULT_TENANT, runtime.config.managementAudience);
      const names = new Map(Object.entries(api!.scope_names).map(([id, name]) => [name, id]));
      const linked = await fx.call('POST', `/clients/${client.id}/resources`, { body: { resources: [api!.id] } });
      if (linked.status !== 204) throw new Error(`link: ${linked.status}`);
      const grant = { permissions: [{ resource_id: api!.id, scopes: scopes.split(' ').map((n) => names.get(n)!) }] };
      const granted = await fx.call('POST', `/clients/${client.id}/permissions`, { body: grant });
      if (granted.status !== 204) throw new Error(`grant: ${granted.status}`);
      const res = await fx.token(client.id, client.client_secret, runtime.config.managementAudience, scopes);
      if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.access_token as string;
    },
    /** An access token for the management API of `userId`, issued to `clientId` (default: the Default Client). */
    userToken(userId: string, options: { clientId?: string; scope?: string; iat?: number } = {}) {
      const now = options.iat ?? Math.floor(runtime.now().getTime() / 1000);
      return runtime.keys.signJwt(
        'ES256',
        { typ: 'at+jwt' },
        {
          iss: runtime.config.issuer,
          aud: runtime.config.managementAudience,
          sub: userId,
          client_id: options.clientId ?? fx.svc.clientId,
          iat: now,
          nbf: now,
          exp: now + 3600,
          jti: randomUUID(),
          ...(options.scope ? { scope: options.scope } : {}),
        },
      );
    },
  };
}

export type UsersFixture = Awaited<ReturnType<typeof usersFixture>>;

/** Every key of a User response without `fields` (docs/contract.md §6) for a user created with only an email. */
export const MINIMAL_USER_KEYS = [
  'aggregations',
  'app_metadata',
  'blocked',
  'created_at',
  'created_by',
  'email',
  'email_verified',
  'id',
  'last_login',
  'logins_count',
  'phone_verified',
  'tenant_id',
  'updated_at',
  'updated_by',
  'user_metadata',
].sort();
