import * as client from 'openid-client';
import { expect } from 'vitest';
import type { PasskeyRecord } from '#shared/records/passkey-record.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { sessionHash } from '#shared/store/sessions/sessions-repository.ts';
import { passkeysRepository } from '#shared/store/users/passkeys-repository.ts';
import { loginClient, storedItem } from '../oauth/login-grants.ts';
import { CookieJar, csrfIn, type PagesFixture, pagesFixture } from './pages-fixture.ts';
import { seedSession } from './seed-session.ts';

/**
 * The account page's tests (docs/passkeys.md "The account page"): the pages fixture plus a way to
 * sign a browser in through `/account` itself, passkeys put through the passkeys repository, and
 * a refresh token of the user from the password grant (openid-client) to see tokens end.
 */
export async function accountFixture(env: Record<string, string> = {}) {
  const fx: PagesFixture = await pagesFixture(env);
  const { runtime } = fx.svc.stack;
  const passkeys = passkeysRepository(runtime.db, runtime.config.tableName, runtime.now);
  const rp = await loginClient(fx.svc, ['password', 'refresh_token']);
  let n = 0;
  return {
    ...fx,
    passkeys,
    rp,
    /**
     * A browser (fetch with a cookie jar) that opened `/account` signed out and signed in through
     * the hosted login: the redirects checked on the way, the interaction used up.
     */
    async signIn(user: { username: string; password: string }, jar = new CookieJar(fx.url)) {
      const start = await jar.get('/account');
      expect(start.status).toBe(303);
      const login = new URL(start.location!);
      expect(login.pathname).toBe('/login');
      const path = `${login.pathname}${login.search}`;
      const form = await jar.get(path);
      expect(form.status).toBe(200);
      const posted = await jar.post(path, { csrf_token: csrfIn(form.text), username: user.username, password: user.password });
      expect(posted.status).toBe(303);
      const consent = await jar.get(posted.location!);
      expect(consent.status).toBe(303);
      expect(consent.location).toBe(`${fx.url}/account`);
      const page = await jar.get('/account');
      expect(page.status).toBe(200);
      return { jar, page, cookie: jar.cookies.get('session')!, interaction: login.searchParams.get('interaction')! };
    },
    /** A browser holding a live session of `user` as a login makes it (seed-session.ts), without the pages. */
    async signInWithSession(user: { id: string; tenant_id: string }) {
      const jar = new CookieJar(fx.url);
      const seeded = await seedSession(runtime, user);
      jar.cookies.set('session', seeded.cookie);
      return { jar, cookie: seeded.cookie };
    },
    /** A passkey of `userId` as the registration stores it (only the fields the page shows matter). */
    addPasskey(userId: string, name: string): Promise<PasskeyRecord> {
      return passkeys.add({
        user_id: userId,
        tenant_id: DEFAULT_TENANT_ID,
        credential_id: Buffer.from(`credential-${++n}-${Date.now()}-${Math.random()}`).toString('base64url'),
        public_key: Buffer.from('not a real key').toString('base64url'),
        counter: 0,
        device_type: 'multiDevice',
        backed_up: true,
        name,
      });
    },
    /** A refresh token of the user, from the password grant through openid-client. */
    async refreshToken(user: { username: string; password: string }): Promise<string> {
      const tokens = await client.genericGrantRequest(rp.config, 'password', {
        username: user.username,
        password: user.password,
        scope: 'openid offline_access',
      });
      expect(tokens.refresh_token).toEqual(expect.any(String));
      return tokens.refresh_token!;
    },
    /** The next refresh token when /token still takes this one (openid-client); undefined on `invalid_grant`. */
    async refresh(refreshToken: string): Promise<string | undefined> {
      try {
        return (await client.refreshTokenGrant(rp.config, refreshToken)).refresh_token ?? refreshToken;
      } catch (err) {
        expect((err as { error?: string }).error).toBe('invalid_grant');
        return undefined;
      }
    },
    sessionItem: (cookie: string) => storedItem(fx.svc, keys.session(sessionHash(cookie))),
  };
}

export type AccountFixture = Awaited<ReturnType<typeof accountFixture>>;
