import { randomUUID } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { sessionHash } from '#shared/store/sessions/sessions-repository.ts';
import { CookieJar, csrfIn, type PagesFixture, pagesFixture } from '../support/browser/pages-fixture.ts';
import { storedItem } from '../support/oauth/login-grants.ts';

/**
 * `/logout` (OIDC RP-Initiated Logout 1.0; docs/browser-flows.md "Logout"): the hint verified
 * against our keys (an expired one accepted, a forged one refused), `post_logout_redirect_uri`
 * exact, `state` passed back, the session ended and its cookie cleared.
 */
let fx: PagesFixture;
let app: Record<string, any>;
const BYE = 'https://app.example.com/signed-out';

beforeAll(async () => {
  fx = await pagesFixture();
  app = await fx.createClient({ client_name: 'Logout app', client_metadata: { urls: { post_logout_redirect_uris: [BYE] } } });
});
afterAll(async () => {
  await fx?.stop();
});

/** A browser signed in as a new user (login through the page). */
async function signedIn() {
  const user = await fx.createLoginUser();
  const { id } = await fx.interaction(app.id);
  const jar = new CookieJar(fx.url);
  const form = await jar.get(`/login?interaction=${id}`);
  const res = await jar.post(`/login?interaction=${id}`, {
    csrf_token: csrfIn(form.text),
    username: user.username,
    password: user.password,
  });
  expect(res.status).toBe(303);
  const cookie = jar.cookies.get('session')!;
  return { user, jar, cookie };
}

/** An ID token of ours for `sub`, issued to `aud`, `age` seconds ago with a 5-minute lifetime. */
async function idToken(sub: string, aud: string = app.id, age = 0): Promise<string> {
  const { runtime } = fx.svc.stack;
  const iat = Math.floor(runtime.now().getTime() / 1000) - age;
  return runtime.keys.signJwt('ES256', { typ: 'JWT' }, { iss: runtime.config.issuer, sub, aud, iat, exp: iat + 300, auth_time: iat });
}

const sessionItem = (cookie: string) => storedItem(fx.svc, keys.session(sessionHash(cookie)));
const logoutUrl = (params: Record<string, string>) => `/logout?${new URLSearchParams(params)}`;

describe('/logout', () => {
  it('a valid id_token_hint ends the session at once, clears the cookie, and redirects to the registered URI with state', async () => {
    const { user, jar, cookie } = await signedIn();
    const res = await jar.get(logoutUrl({ id_token_hint: await idToken(user.id), post_logout_redirect_uri: BYE, state: 'xyz 1' }));
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${BYE}?state=xyz+1`);
    expect(res.setCookie).toHaveLength(1);
    expect(res.setCookie[0]).toMatch(/^session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax$/);
    expect((await sessionItem(cookie))?.ended_at).toEqual(expect.any(String));
    expect(await fx.sessions.findSession(cookie)).toBeUndefined();
  });

  it('an expired id_token_hint is accepted for logout (RP-Initiated Logout 1.0 §2); POST works as GET', async () => {
    const { user, jar, cookie } = await signedIn();
    const res = await jar.post('/logout', { id_token_hint: await idToken(user.id, app.id, 7 * 24 * 3600), post_logout_redirect_uri: BYE });
    expect(res.status).toBe(303);
    expect(res.location).toBe(BYE);
    expect((await sessionItem(cookie))?.ended_at).toEqual(expect.any(String));
  });

  it('a forged, foreign or non-ID-token hint is a 400 page: no redirect, the session lives', async () => {
    const { user, jar, cookie } = await signedIn();
    const { runtime } = fx.svc.stack;
    const [current] = await runtime.keys.publishedKeys();
    const other = await generateKeyPair('ES256');
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: runtime.config.issuer, sub: user.id, aud: app.id, iat: now, exp: now + 300 };
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: current!.kid, typ: 'JWT' }).sign(other.privateKey);
    const wrongIssuer = await runtime.keys.signJwt('ES256', { typ: 'JWT' }, { ...claims, iss: 'https://evil.example.com' });
    const accessToken = await runtime.keys.signJwt('ES256', { typ: 'at+jwt' }, { ...claims, jti: randomUUID() });
    const valid = await idToken(user.id);
    const tampered = `${valid.split('.')[0]}.${Buffer.from(JSON.stringify({ ...claims, sub: randomUUID() })).toString('base64url')}.${valid.split('.')[2]}`;
    for (const hint of [forged, wrongIssuer, accessToken, tampered, 'not-a-jwt']) {
      const res = await jar.get(logoutUrl({ id_token_hint: hint, post_logout_redirect_uri: BYE }));
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.setCookie).toEqual([]);
    }
    expect(await fx.sessions.findSession(cookie)).toMatchObject({ user_id: user.id });
  });

  it('post_logout_redirect_uri must match exactly: every variant is a 400 page without a redirect', async () => {
    const { user, jar, cookie } = await signedIn();
    const hint = await idToken(user.id);
    for (const uri of [
      `${BYE}/`,
      BYE.toUpperCase(),
      `${BYE}?x=1`,
      `${BYE}#frag`,
      'https://app.example.com/signed',
      'https://app.example.com:444/signed-out',
      'https://evil.example.com/signed-out',
      'https://app.example.com@evil.example.com/signed-out',
      'https://app.example.com/x/..%2fsigned-out',
    ]) {
      const res = await jar.get(logoutUrl({ id_token_hint: hint, post_logout_redirect_uri: uri }));
      expect(res.status, uri).toBe(400);
      expect(res.location).toBeNull();
    }
    // Without a hint or client_id nothing says whose URI it is: refused too.
    expect((await jar.get(logoutUrl({ post_logout_redirect_uri: BYE }))).status).toBe(400);
    // A client_id that is not the hint's audience.
    const other = await fx.createClient({ client_metadata: { urls: { post_logout_redirect_uris: [BYE] } } });
    expect((await jar.get(logoutUrl({ id_token_hint: hint, client_id: other.id, post_logout_redirect_uri: BYE }))).status).toBe(400);
    expect(await fx.sessions.findSession(cookie)).toMatchObject({ user_id: user.id });
  });

  it('a client_id no client could have (too long for a key, odd characters) is a 400 page, never a 500', async () => {
    // Found by the page fuzzer (a random seed): 3,000 bytes of client_id reached GetItem, whose
    // key limit made it a ValidationException and a 500.
    const jar = new CookieJar(fx.url);
    for (const clientId of ['x'.repeat(3000), `${app.id}\u0000`, 'é'.repeat(800)]) {
      const res = await jar.get(logoutUrl({ client_id: clientId, post_logout_redirect_uri: BYE }));
      expect(res.status).toBe(400);
      expect(res.text).toContain('not registered for this application');
      expect(res.location).toBeNull();
    }
    // The same request with the real id is the registered redirect.
    expect((await jar.get(logoutUrl({ client_id: app.id, post_logout_redirect_uri: BYE }))).location).toBe(BYE);
  });

  it('without a hint: a confirmation page; its POST (CSRF bound to the session) ends the session; a POST without the token does not', async () => {
    const { user, jar, cookie } = await signedIn();
    const page = await jar.get(logoutUrl({ client_id: app.id, post_logout_redirect_uri: BYE, state: 's1' }));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<button type="submit">Sign out</button>');
    expect(page.text).toContain(`name="post_logout_redirect_uri" value="${BYE}"`);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://app.example.com");
    expect(await fx.sessions.findSession(cookie)).toMatchObject({ user_id: user.id });

    const noToken = await jar.post('/logout', { client_id: app.id, post_logout_redirect_uri: BYE, state: 's1' });
    expect(noToken.status).toBe(200); // asked again
    expect(await fx.sessions.findSession(cookie)).toMatchObject({ user_id: user.id });
    const otherBrowser = await signedIn();
    const foreignToken = csrfIn((await otherBrowser.jar.get('/logout')).text);
    expect((await jar.post('/logout', { csrf_token: foreignToken })).status).toBe(200);
    expect(await fx.sessions.findSession(cookie)).toMatchObject({ user_id: user.id });

    const res = await jar.post('/logout', { csrf_token: csrfIn(page.text), client_id: app.id, post_logout_redirect_uri: BYE, state: 's1' });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${BYE}?state=s1`);
    expect((await sessionItem(cookie))?.ended_at).toEqual(expect.any(String));
    expect(jar.cookies.has('session')).toBe(false);
  });

  it("a hint for another user than the session's asks first instead of ending it", async () => {
    const { user, jar, cookie } = await signedIn();
    const res = await jar.get(logoutUrl({ id_token_hint: await idToken(randomUUID()) }));
    expect(res.status).toBe(200);
    expect(res.text).toContain('Sign out?');
    expect(await fx.sessions.findSession(cookie)).toMatchObject({ user_id: user.id });
  });

  it('no session: the signed-out page, or the registered redirect; nothing to clear', async () => {
    const jar = new CookieJar(fx.url);
    const page = await jar.get('/logout');
    expect(page.status).toBe(200);
    expect(page.text).toContain('You are signed out.');
    expect(page.setCookie).toEqual([]);
    const res = await jar.get(logoutUrl({ client_id: app.id, post_logout_redirect_uri: BYE }));
    expect(res.status).toBe(303);
    expect(res.location).toBe(BYE);
  });

  it('state with markup is passed back encoded in the URL and never rendered raw', async () => {
    const { jar } = await signedIn();
    const page = await jar.get(logoutUrl({ client_id: app.id, post_logout_redirect_uri: BYE, state: '"><script>alert(1)</script>' }));
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<script>');
    expect(page.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });
});
