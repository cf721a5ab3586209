import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenResource } from '#shared/oauth/oauth-deps.ts';
import { NOT_LINKED_MESSAGE } from '#shared/oauth/user-tokens/management-api-link.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { CookieJar, type PagesFixture, pagesFixture } from '../support/browser/pages-fixture.ts';
import { finishInteraction, seedConsent, seedSession } from '../support/browser/seed-session.ts';
import { GOOD_PASSWORD } from '../support/management/users-fixture.ts';
import {
  authorizeThrough,
  authorizeUrl,
  browserGet,
  flowClient,
  interactionOf,
  pkce,
  REDIRECT,
  responseParams,
} from '../support/oauth/authorize-flow.ts';
import { loginClient, tokenRequest } from '../support/oauth/login-grants.ts';

/**
 * The management API is a Resource like no other (docs/security.md "The management API"), over
 * HTTP: user tokens for it only through clients linked to it (/authorize, /token), no first-party
 * consent skip for it, and `prompt=none` only with a remembered User Grant. Tokens are verified
 * with jose against our JWKS; codes and refreshes go through openid-client.
 */
let fx: PagesFixture;
let api: TokenResource;
let everyScope: string[];
let jwks: ReturnType<typeof createRemoteJWKSet>;
const EVIL = 'https://attacker.example/cb';

beforeAll(async () => {
  fx = await pagesFixture();
  api = (await oauthDeps(fx.svc.stack.runtime).findResource(DEFAULT_TENANT_ID, fx.svc.managementAudience))!;
  everyScope = Object.values(api.scope_names).sort();
  jwks = createRemoteJWKSet(new URL(`${fx.svc.url}/.well-known/jwks.json`));
});
afterAll(async () => fx?.stop());

const audience = () => fx.svc.managementAudience;
const runtime = () => fx.svc.stack.runtime;

/** A user of the default tenant with a password (GOOD_PASSWORD). */
const loginUser = async () => (await fx.createLoginUser()) as Awaited<ReturnType<PagesFixture['createLoginUser']>> & { tenant_id: string };

/** A user holding every management scope directly: an administrator. */
async function administrator() {
  const user = await loginUser();
  const body = { permissions: [{ resource_id: api.id, scopes: Object.keys(api.scope_names) }] };
  expect((await fx.call('POST', `/users/${user.id}/permissions`, { body })).status).toBe(204);
  return user;
}

/** The Default Client (every management scope) authorizes the client on the management API, or takes it away. */
async function link(clientId: string) {
  expect((await fx.call('POST', `/clients/${clientId}/resources`, { body: { resources: [api.id] } })).status).toBe(204);
}
async function unlink(clientId: string) {
  expect((await fx.call('DELETE', `/clients/${clientId}/resources`, { body: { resources: [api.id] } })).status).toBe(204);
}

const notLinked = { error: 'invalid_target', error_description: NOT_LINKED_MESSAGE };

describe('the attack: a client made with create:clients alone, first party, public, implicit', () => {
  it("gets no administrator's token: prompt=none, interactive, with or without a session, the link error goes to its redirect URI", async () => {
    const attacker = await fx.createClient({ client_name: 'helper', client_metadata: { grant_types: ['client_credentials'] } });
    const attackerToken = await fx.clientToken(attacker, 'create:clients');
    const evil = await fx.call('POST', '/clients', {
      token: attackerToken,
      body: {
        client_name: 'Totally the admin console',
        is_first_party: true,
        is_public: true,
        client_metadata: { grant_types: ['implicit'], urls: { redirect_uris: [EVIL] } },
      },
    });
    // Creating a client links nothing, so create:clients still suffices.
    expect(evil.status).toBe(201);
    const admin = await administrator();
    const session = await seedSession(runtime(), admin);
    const params = {
      client_id: evil.body.id,
      redirect_uri: EVIL,
      response_type: 'token',
      audience: audience(),
      scope: everyScope.join(' '),
      nonce: 'n',
    };

    for (const [extra, cookie] of [
      [{ prompt: 'none' }, session.header],
      [{}, session.header],
      [{}, undefined],
    ] as const) {
      const answer = await browserGet(authorizeUrl(fx.svc, { ...params, ...extra }), cookie);
      expect(answer.status, answer.body).toBe(303);
      expect(answer.location!.startsWith(`${EVIL}#`)).toBe(true);
      const back = responseParams(answer.location!);
      expect(back.get('access_token')).toBeNull();
      expect(Object.fromEntries(back)).toMatchObject(notLinked);
    }
  });
});

describe('user tokens for the management API only through a linked client', () => {
  it('password grant: invalid_target through an unlinked client; once linked, the user gets its own management token', async () => {
    const admin = await administrator();
    const rp = await loginClient(fx.svc, ['password']);
    const ask = () =>
      tokenRequest(fx.svc, rp.auth, 'password', {
        username: admin.username,
        password: GOOD_PASSWORD,
        audience: audience(),
        scope: 'read:users read:clients',
      });
    expect(await ask()).toMatchObject({ status: 400, body: notLinked });

    await link(rp.clientId);
    const tokens = await client.genericGrantRequest(rp.config, 'password', {
      username: admin.username,
      password: GOOD_PASSWORD,
      audience: audience(),
      scope: 'read:users read:clients',
    });
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: fx.svc.url, audience: audience(), typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: admin.id, client_id: rp.clientId, scope: 'read:users read:clients' });
    expect((await fx.call('GET', `/users/${admin.id}`, { token: tokens.access_token })).body.id).toBe(admin.id);
  });

  it('authorization code: refused at /authorize before login when unlinked; works once linked; a code or refresh token of a client unlinked since is refused', async () => {
    const admin = await administrator();
    const session = await seedSession(runtime(), admin);
    const rp = await flowClient(fx.svc, { grant_types: ['authorization_code', 'refresh_token'] });
    const { verifier, challenge } = await pkce();
    const params = {
      client_id: rp.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid offline_access read:users',
      audience: audience(),
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const refused = await browserGet(authorizeUrl(fx.svc, params), session.header);
    expect(refused.status).toBe(303);
    expect(refused.location!.startsWith(`${REDIRECT}?`)).toBe(true);
    expect(Object.fromEntries(responseParams(refused.location!))).toMatchObject({ ...notLinked, state: 's' });

    await link(rp.clientId);
    const back = await authorizeThrough(fx.svc, params, session, admin);
    const tokens = await client.authorizationCodeGrant(rp.config, new URL(back.location!), {
      pkceCodeVerifier: verifier,
      expectedState: 's',
    });
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: fx.svc.url, audience: audience(), typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: admin.id, client_id: rp.clientId, scope: 'openid offline_access read:users' });
    const refreshed = await client.refreshTokenGrant(rp.config, tokens.refresh_token!);

    // A code issued while linked, redeemed after the link is gone: no token.
    const again = await authorizeThrough(fx.svc, params, session, admin);
    await unlink(rp.clientId);
    await expect(
      client.authorizationCodeGrant(rp.config, new URL(again.location!), { pkceCodeVerifier: verifier, expectedState: 's' }),
    ).rejects.toMatchObject({ error: 'invalid_target', status: 400 });
    // Nor does the refresh token of the earlier login keep working.
    await expect(client.refreshTokenGrant(rp.config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_target',
      status: 400,
    });
  });

  it('a login that finishes after the client lost its link: the resume sends the link error, no code', async () => {
    const admin = await administrator();
    const session = await seedSession(runtime(), admin);
    const rp = await flowClient(fx.svc, { grant_types: ['authorization_code'] });
    await link(rp.clientId);
    const { challenge } = await pkce();
    const started = await browserGet(
      authorizeUrl(fx.svc, {
        client_id: rp.clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'read:users',
        audience: audience(),
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
      session.header,
    );
    const interaction = interactionOf(started, fx.svc);
    await unlink(rp.clientId);
    await finishInteraction(runtime(), interaction, session, admin.id, 'allow');
    const resumed = await browserGet(`${fx.svc.url}/authorize/resume?interaction=${interaction}`, session.header);
    expect(resumed.status).toBe(303);
    const back = responseParams(resumed.location!);
    expect(back.get('code')).toBeNull();
    expect(Object.fromEntries(back)).toMatchObject(notLinked);
  });
});

describe('consent for the management API is never skipped for a first-party client', () => {
  it('linked first-party client: prompt=none is consent_required without a User Grant, the consent page asks, a remembered grant answers silently', async () => {
    const admin = await administrator();
    const rp = await flowClient(fx.svc, { is_first_party: true, is_public: true, grant_types: ['implicit'] });
    await link(rp.clientId);
    // The management API's stored flag says "skip for first party": it must not count.
    expect((await fx.call('GET', `/resources/${api.id}`)).body.resource_metadata.skip_consent_for_first_party).toBe(true);
    const params = { client_id: rp.clientId, redirect_uri: REDIRECT, response_type: 'token', audience: audience(), scope: 'read:users' };

    const jar = new CookieJar(fx.svc.url);
    jar.cookies.set('session', (await seedSession(runtime(), admin)).cookie);
    const silent = await jar.get(authorizeUrl(fx.svc, { ...params, prompt: 'none' }));
    expect(silent.status).toBe(303);
    expect(responseParams(silent.location!).get('access_token')).toBeNull();
    expect(responseParams(silent.location!).get('error')).toBe('consent_required');

    // Interactive: the session logs in without a form, and the consent page asks.
    const started = await jar.get(authorizeUrl(fx.svc, params));
    expect(started.location).toMatch(/\/login\?interaction=/);
    const login = await jar.get(started.location!);
    expect(login.status).toBe(303);
    expect(login.location).toMatch(/\/consent\?interaction=/);
    const consent = await jar.get(login.location!);
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('Allow access?');
    expect(consent.text).toContain('<code>read:users</code>');
    expect(consent.text).toContain('name="decision" value="allow"');

    // A remembered grant covering the scopes: prompt=none gives the token.
    await seedConsent(runtime(), admin, rp.clientId, ['read:users'], api.id);
    const remembered = await jar.get(authorizeUrl(fx.svc, { ...params, prompt: 'none' }));
    const token = responseParams(remembered.location!).get('access_token')!;
    const { payload } = await jwtVerify(token, jwks, { issuer: fx.svc.url, audience: audience(), typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: admin.id, client_id: rp.clientId, scope: 'read:users' });
  });

  it('an ordinary Resource keeps the first-party skip (prompt=none answers without a grant)', async () => {
    const user = await loginUser();
    const resource = await fx.createResource(['read:things']);
    const rp = await flowClient(fx.svc, { is_first_party: true, is_public: true, grant_types: ['implicit'] });
    const session = await seedSession(runtime(), user);
    const answer = await browserGet(
      authorizeUrl(fx.svc, {
        client_id: rp.clientId,
        redirect_uri: REDIRECT,
        response_type: 'token',
        audience: resource.audience,
        scope: 'read:things',
        prompt: 'none',
      }),
      session.header,
    );
    const token = responseParams(answer.location!).get('access_token')!;
    const { payload } = await jwtVerify(token, jwks, { issuer: fx.svc.url, audience: resource.audience, typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: user.id, client_id: rp.clientId, scope: 'read:things' });
  });
});
