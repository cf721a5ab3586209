import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, csrfIn } from '../../support/browser/pages-fixture.ts';
import { GOOD_PASSWORD } from '../../support/management/users-fixture.ts';
import { INVALID_CREDENTIALS } from '../../support/oauth/login-grants.ts';
import { basicAuth } from '../../support/service/local-service.ts';
import { type IsolationFixture, isolationFixture } from './isolation-fixture.ts';

/**
 * The tenant rules of docs/contract.md §4 at the OAuth endpoints and hosted pages (docs/tenants.md
 * "Isolation walk"): a client of tenant A that names B's audience, presents B's tokens or signs in
 * B's user gets the answer of an unknown audience, token or user, and B's tokens keep working.
 */
let w: IsolationFixture;
let aAuth: string;
let bAuth: string;

beforeAll(async () => {
  w = await isolationFixture();
  aAuth = basicAuth(w.a.client.id, w.a.client.client_secret);
  bAuth = basicAuth(w.b.client.id, w.b.client.client_secret);
}, 120_000);
afterAll(async () => w?.stop());

/** A form POST to an OAuth endpoint; the body is JSON when there is one (RFC 7009 §2.2 answers 200 empty). */
async function post(path: string, authorization: string | undefined, form: Record<string, string>) {
  const res = await fetch(`${w.url}${path}`, {
    method: 'POST',
    headers: { ...(authorization ? { authorization } : {}), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, cacheControl: res.headers.get('cache-control') };
}

/** A string shaped like our refresh tokens (256 random bits, base64url) that no one was issued. */
const foreignRefresh = () => randomBytes(32).toString('base64url');

describe('/token with a client of A', () => {
  it("asking for B's resource is invalid_target, exactly as an unknown audience (audience and RFC 8707 resource)", async () => {
    const caller = basicAuth(w.aCallerClient.id, w.aCallerClient.client_secret);
    for (const param of ['audience', 'resource']) {
      const ofB = await post('/token', caller, {
        grant_type: 'client_credentials',
        [param]: w.b.resource.resource_metadata.identifier_url,
      });
      const unknown = await post('/token', caller, {
        grant_type: 'client_credentials',
        [param]: `https://unknown-${randomUUID()}.example.com/`,
      });
      expect(ofB.status, param).toBe(400);
      expect(ofB.body.error).toBe('invalid_target');
      expect(ofB).toEqual(unknown);
    }
  });

  it("B's user's password (by username or email) is invalid_grant, exactly as an unknown user", async () => {
    const answers = [];
    for (const username of [w.b.user.username, w.b.user.email, `nobody-${randomUUID()}`]) {
      answers.push(await post('/token', aAuth, { grant_type: 'password', username, password: GOOD_PASSWORD }));
    }
    for (const answer of answers) expect(answer).toEqual({ status: 400, body: INVALID_CREDENTIALS, cacheControl: 'no-store' });
  });

  it("B's refresh token is invalid_grant, exactly as one never issued; B's client still refreshes it", async () => {
    const ofB = await post('/token', aAuth, { grant_type: 'refresh_token', refresh_token: w.b.tokens.refresh_token });
    const unknown = await post('/token', aAuth, { grant_type: 'refresh_token', refresh_token: foreignRefresh() });
    expect(ofB.status).toBe(400);
    expect(ofB.body.error).toBe('invalid_grant');
    expect(ofB).toEqual(unknown);
  });
});

describe("/introspect, /tokeninfo and /revoke of B's tokens by a client of A", () => {
  it('introspection says inactive, exactly as for a token never issued; B sees them active', async () => {
    for (const path of ['/introspect', '/tokeninfo']) {
      const garbage = await post(path, aAuth, { token: foreignRefresh() });
      expect(garbage.status, path).toBe(200);
      expect(garbage.body).toEqual({ active: false });
      for (const token of [w.b.tokens.access_token, w.b.tokens.refresh_token]) {
        expect(await post(path, aAuth, { token }), path).toEqual(garbage);
      }
      const own = await post(path, bAuth, { token: w.b.tokens.access_token });
      expect(own.body.active, path).toBe(true);
    }
  });

  it("revoking is the 200 of an unknown token, and B's tokens stay live", async () => {
    const unknown = await post('/revoke', aAuth, { token: foreignRefresh() });
    expect(unknown.status).toBe(200);
    for (const token of [w.b.tokens.access_token, w.b.tokens.refresh_token]) {
      expect(await post('/revoke', aAuth, { token })).toEqual(unknown);
    }
    expect((await post('/introspect', bAuth, { token: w.b.tokens.access_token })).body.active).toBe(true);
    const refreshed = await post('/token', bAuth, { grant_type: 'refresh_token', refresh_token: w.b.tokens.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).toEqual(expect.any(String));
  });
});

describe("B's audience at /authorize and /device_code with a client of A", () => {
  const unknownAudience = () => `https://unknown-${randomUUID()}.example.com/`;

  it('/authorize redirects with invalid_target as for an unknown audience, before any login', async () => {
    const authorize = async (audience: string) => {
      const query = new URLSearchParams({
        client_id: w.a.client.id,
        response_type: 'code',
        redirect_uri: w.a.client.client_metadata.urls.redirect_uris[0],
        scope: 'openid',
        audience,
        state: 'isolation',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      });
      const res = await fetch(`${w.url}/authorize?${query}`, { redirect: 'manual' });
      const location = res.headers.get('location')?.replace(/interaction=[A-Za-z0-9_-]+/, 'interaction={handle}');
      return { status: res.status, location, body: (await res.text()).replace(/[A-Za-z0-9_-]{43}/g, '{token}') };
    };
    const ofB = await authorize(w.b.resource.resource_metadata.identifier_url);
    expect(ofB.status).toBe(303);
    expect(new URL(ofB.location!).searchParams.get('error')).toBe('invalid_target');
    expect(ofB).toEqual(await authorize(unknownAudience()));
  });

  it('/device_code answers as for an unknown audience', async () => {
    const tv = await w.call('POST', '/clients', {
      headers: { tenant_id: w.tenantA },
      body: {
        client_name: 'A TV',
        tenant_id: w.tenantA,
        is_global: false,
        is_public: true,
        client_metadata: { grant_types: ['device_code'] },
      },
    });
    expect(tv.status).toBe(201);
    const device = async (audience: string) => {
      const res = await post('/device_code', undefined, { client_id: tv.body.id, scope: 'openid', audience });
      return { ...res, body: res.status === 200 ? Object.keys(res.body).sort() : res.body };
    };
    const ofB = await device(w.b.resource.resource_metadata.identifier_url);
    expect(ofB.status).toBe(400);
    expect(ofB).toEqual(await device(unknownAudience()));
  });
});

describe("B's identity provider with a client of A (docs/federation.md)", () => {
  it("/authorize?connection= naming B's provider answers as naming no provider", async () => {
    const authorize = async (connection: string) => {
      const query = new URLSearchParams({
        client_id: w.a.client.id,
        response_type: 'code',
        redirect_uri: w.a.client.client_metadata.urls.redirect_uris[0],
        scope: 'openid',
        connection,
        state: 'isolation',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      });
      const res = await fetch(`${w.url}/authorize?${query}`, { redirect: 'manual' });
      return { status: res.status, location: res.headers.get('location'), body: await res.text() };
    };
    const ofB = await authorize(w.b.provider.provider_name);
    expect(ofB.status).toBe(303);
    expect(new URL(ofB.location!).searchParams.get('error')).toBe('invalid_request');
    expect(ofB).toEqual(await authorize(`nobody-${randomUUID().slice(0, 8)}`));
  });

  it("token exchange: B's provider by name or by issuer, or B's own access token, answers as an unknown one", async () => {
    const exchanger = await w.call('POST', '/clients', {
      headers: { tenant_id: w.tenantA },
      body: { client_name: 'A exchanger', tenant_id: w.tenantA, is_global: false, client_metadata: { grant_types: ['token_exchange'] } },
    });
    expect(exchanger.status).toBe(201);
    const auth = basicAuth(exchanger.body.id, exchanger.body.client_secret);
    const jwt = (claims: Record<string, unknown>) =>
      [{ alg: 'RS256', typ: 'JWT', kid: 'k' }, claims, 'sig']
        .map((p) => Buffer.from(typeof p === 'string' ? p : JSON.stringify(p)).toString('base64url'))
        .join('.');
    const exchange = (subject_token_type: string, subject_token: string) =>
      post('/token', auth, { grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token_type, subject_token });
    const now = Math.floor(Date.now() / 1000);
    const external = (iss: string) => jwt({ iss, sub: 'someone', aud: 'b-rp', iat: now, exp: now + 300 });
    const cases = [
      [
        exchange(w.b.provider.provider_name, external(w.b.provider.issuer)),
        exchange(`nobody-${randomUUID().slice(0, 8)}`, external(w.b.provider.issuer)),
      ],
      [
        exchange('urn:ietf:params:oauth:token-type:id_token', external(w.b.provider.issuer)),
        exchange('urn:ietf:params:oauth:token-type:id_token', external(`https://nobody-${randomUUID()}.example.com`)),
      ],
      [
        exchange('urn:ietf:params:oauth:token-type:access_token', w.b.tokens.access_token),
        exchange('urn:ietf:params:oauth:token-type:access_token', jwt({ iss: w.url, sub: 'someone', iat: now, exp: now + 300 })),
      ],
    ];
    for (const [ofB, unknown] of cases) {
      const [b, u] = await Promise.all([ofB!, unknown!]);
      expect(b.status).toBe(400);
      expect(b).toEqual(u);
    }
  });
});

/** The alert of an HTML page, or undefined. */
const alertOf = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1];

/** /authorize as `client` up to the login form; returns the jar and the login URL. */
async function loginForm(client: Record<string, any>, jar = new CookieJar(w.url)) {
  const started = await jar.get(
    `/authorize?${new URLSearchParams({ client_id: client.id, response_type: 'code', redirect_uri: client.client_metadata.urls.redirect_uris[0], scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`,
  );
  expect(started.status).toBe(303);
  return { jar, loginUrl: started.location! };
}

async function signIn(jar: CookieJar, loginUrl: string, username: string, password = GOOD_PASSWORD) {
  const form = await jar.get(loginUrl);
  expect(form.status).toBe(200);
  return jar.post(loginUrl, { csrf_token: csrfIn(form.text), username, password });
}

describe('hosted pages', () => {
  it("/authorize with A's client: B's user cannot sign in, the page says what it says to an unknown user, no session", async () => {
    const answers = [];
    for (const username of [w.b.user.username, w.b.user.email, `nobody-${randomUUID()}`]) {
      const { jar, loginUrl } = await loginForm(w.a.client);
      const res = await signIn(jar, loginUrl, username);
      expect(res.status, username).toBe(400);
      expect(jar.cookies.has('session')).toBe(false);
      answers.push({ status: res.status, alert: alertOf(res.text), form: res.text.includes('name="password"') });
    }
    expect(answers).toEqual(Array(3).fill({ status: 400, alert: 'The username or password is not correct.', form: true }));
  });

  it("the device page with B's user code: A's session does not carry over, A's user cannot sign in, the device gets nothing", async () => {
    const tv = (
      await w.call('POST', '/clients', {
        headers: { tenant_id: w.tenantB },
        body: {
          client_name: 'B TV',
          tenant_id: w.tenantB,
          is_global: false,
          is_public: true,
          client_metadata: { grant_types: ['device_code'] },
        },
      })
    ).body;
    const started = await fetch(`${w.url}/device_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: tv.id, scope: 'openid' }),
    });
    expect(started.status).toBe(200);
    const { user_code, device_code } = (await started.json()) as { user_code: string; device_code: string };

    // A browser signed in as A's user (a session of tenant A).
    const { jar, loginUrl } = await loginForm(w.a.client);
    expect((await signIn(jar, loginUrl, w.a.user.username)).status).toBe(303);
    expect(jar.cookies.has('session')).toBe(true);

    const page = await jar.get('/device');
    const entered = await jar.post('/device', { csrf_token: csrfIn(page.text), user_code });
    expect(entered.status).toBe(303);
    const deviceLogin = entered.location!;
    // The session of another tenant does not stand in for the form (docs/browser-flows.md).
    const form = await jar.get(deviceLogin);
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="password"');
    const answers = [];
    for (const username of [w.a.user.username, `nobody-${randomUUID()}`]) {
      const res = await jar.post(deviceLogin, { csrf_token: csrfIn(form.text), username, password: GOOD_PASSWORD });
      answers.push({ status: res.status, alert: alertOf(res.text) });
    }
    expect(answers).toEqual(Array(2).fill({ status: 400, alert: 'The username or password is not correct.' }));
    const polled = await post('/token', undefined, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code,
      client_id: tv.id,
    });
    expect(polled.status).toBe(400);
    expect(polled.body.error).toBe('authorization_pending');
  });
});

describe('uniqueness is per tenant: no name of B is an oracle in A (docs/contract.md §6)', () => {
  it("A creates a user with B's email and username, a role and a group with B's names: 201 in A", async () => {
    const inA = { token: w.callers[0]!.token };
    const user = await w.call('POST', '/users', { ...inA, body: { email: w.b.user.email, username: w.b.user.username } });
    expect(user.status).toBe(201);
    expect(user.body).toMatchObject({ tenant_id: w.tenantA, email: w.b.user.email, username: w.b.user.username });
    const role = await w.call('POST', '/roles', { ...inA, body: { role_name: w.b.role.role_name } });
    expect(role.status).toBe(201);
    expect(role.body.tenant_id).toBe(w.tenantA);
    const group = await w.call('POST', '/groups', { ...inA, body: { group_name: w.b.group.group_name } });
    expect(group.status).toBe(201);
    expect(group.body.tenant_id).toBe(w.tenantA);
  });

  it("self-service sign-up with A's client and an email of B makes a user in A", async () => {
    const email = `b-twin-${randomUUID().slice(0, 8)}@example.com`;
    const inB = await w.call('POST', '/users', { headers: { tenant_id: w.tenantB }, body: { email } });
    expect(inB.status).toBe(201);
    const res = await fetch(`${w.url}/identity/v1/users/register`, {
      method: 'POST',
      headers: { authorization: aAuth, 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: GOOD_PASSWORD }),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, any>;
    expect(body).toMatchObject({ email, tenant_id: w.tenantA, email_verified: false });
    expect(body.id).not.toBe(inB.body.id);
  });
});
