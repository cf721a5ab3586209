import { randomUUID } from 'node:crypto';
import { clientsFixture } from './clients-fixture.ts';

/** A password the rules of API.md §7.2 accept (long, not common). */
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
      const res = await fx.call('POST', '/users', { body: { email: `user${++n}-${randomUUID().slice(0, 8)}@example.com`, ...body }, headers });
      if (res.status !== 201) throw new Error(`create user: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Record<string, any>;
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

/** Every key of a User response without `fields` (API.md §6) for a user created with only an email. */
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
