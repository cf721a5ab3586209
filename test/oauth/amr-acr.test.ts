import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { base32Decode, totp } from '#shared/crypto/totp.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { codeHash } from '#shared/store/sessions/authorization-codes-repository.ts';
import { deviceCodeHash } from '#shared/store/sessions/device-codes-repository.ts';
import { interactionsRepository } from '#shared/store/sessions/interactions-repository.ts';
import { refreshTokenHash } from '#shared/store/sessions/refresh-tokens-repository.ts';
import { type AuthMethod, sessionsRepository } from '#shared/store/sessions/sessions-repository.ts';
import { otpRepository } from '#shared/store/users/otp-repository.ts';
import { seedConsent } from '../support/browser/seed-session.ts';
import {
  authorizeUrl,
  browserGet,
  type FlowClient,
  flowClient,
  interactionOf,
  pkce,
  postToken,
  REDIRECT,
  redeemCode,
  responseParams,
} from '../support/oauth/authorize-flow.ts';
import { loginClient, storedItem, tokenRequest } from '../support/oauth/login-grants.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * `amr` and `acr` in ID tokens (RFC 8176; OIDC Core §2, §3.1.2.1, §5.5.1.1; docs/passkeys.md "amr
 * and acr") end to end: the login's `amr` travels through authorization codes, implicit ID tokens,
 * refresh tokens (every rotation), device codes and the password / otp grants; `acr_values` at
 * /authorize and /par picks the ID token's `acr` and keeps a session that does not meet it from
 * standing in for a login. openid-client is the relying party, jose verifies every ID token against
 * our JWKS. Sessions with a passkey's `amr` are made through the sessions repository, as the login
 * page makes them.
 */
let svc: TestService;
let pub: FlowClient;
let conf: FlowClient;
let jwks: ReturnType<typeof createRemoteJWKSet>;
const PASSWORD = 'amber-lantern-42-orchard';
let passwordHash: string;

beforeAll(async () => {
  svc = await startTestService();
  pub = await flowClient(svc, { is_public: true, is_first_party: true });
  conf = await flowClient(svc, { grant_types: ['authorization_code', 'refresh_token', 'implicit'], is_first_party: true });
  jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
  passwordHash = await hashPassword(PASSWORD);
});
afterAll(async () => svc?.stop());

const runtime = () => svc.stack.runtime;
const repos = () => {
  const { db, config, now } = runtime();
  return { sessions: sessionsRepository(db, config.tableName, now), interactions: interactionsRepository(db, config.tableName, now) };
};
const newUser = () => {
  const n = Math.random().toString(36).slice(2, 10);
  return putUser(runtime(), { email: `amr.${n}@example.com`, username: `amr_${n}`, password_hash: passwordHash });
};
type User = Awaited<ReturnType<typeof newUser>>;

/** A live browser session of `user` whose login proved `amr`, as the login page creates it. */
async function sessionWith(user: User, amr: AuthMethod[]) {
  const authTime = Math.floor(Date.now() / 1000) - 5;
  const { value, session } = await repos().sessions.createSession({ userId: user.id, tenantId: user.tenant_id, authTime, amr });
  return { header: `session=${value}`, id: session.id, authTime };
}

const codeParams = (c: FlowClient, challenge: string, extra: Record<string, string> = {}) => ({
  client_id: c.clientId,
  redirect_uri: REDIRECT,
  response_type: 'code',
  scope: 'openid offline_access',
  state: 'st-amr',
  nonce: 'n-amr',
  code_challenge: challenge,
  code_challenge_method: 'S256',
  ...extra,
});

const verifyIdToken = async (idToken: string, audience: string) =>
  (await jwtVerify(idToken, jwks, { issuer: svc.url, audience, algorithms: ['RS256'] })).payload;

/** A cookie jar for the hosted pages over HTTP (paths ignored). */
class Jar {
  readonly cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const value = pair!.slice(eq + 1).trim();
      if (value && !/max-age=0\b/i.test(line)) this.cookies.set(pair!.slice(0, eq).trim(), value);
      else this.cookies.delete(pair!.slice(0, eq).trim());
    }
  }
  header = () => [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
}
async function send(jar: Jar, url: string, form?: Record<string, string>) {
  const res = await fetch(url, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: { cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(form ? { body: new URLSearchParams(form) } : {}),
  });
  jar.take(res);
  return { status: res.status, location: res.headers.get('location'), body: await res.text() };
}
const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];

describe('the login amr in ID tokens (RFC 8176, OIDC Core §2)', () => {
  it('a password sign-in on the hosted login page: amr ["pwd"] in the ID token, no acr; a refresh keeps amr and auth_time', async () => {
    const user = await newUser();
    const jar = new Jar();
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(pub.config, {
      redirect_uri: REDIRECT,
      scope: 'openid offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce: 'n-page',
      state: 'st-page',
    });
    const toLogin = await send(jar, url.href);
    expect(toLogin.status).toBe(303);
    const loginUrl = new URL(toLogin.location!, svc.url).href;
    const page = await send(jar, loginUrl);
    expect(page.status).toBe(200);
    let answer = await send(jar, loginUrl, { csrf_token: csrfOf(page.body)!, username: user.username!, password: PASSWORD });
    expect(answer.status, answer.body.slice(0, 300)).toBe(303);
    // On through consent (skipped: a first-party client and OIDC scopes) and the resume route to the client.
    for (let hops = 0; !answer.location!.startsWith(REDIRECT) && hops < 5; hops++) {
      answer = await send(jar, new URL(answer.location!, svc.url).href);
      expect(answer.status, answer.body.slice(0, 300)).toBe(303);
    }
    const back = new URL(answer.location!);
    expect(back.searchParams.get('state')).toBe('st-page');
    const code = back.searchParams.get('code')!;
    expect(await storedItem(svc, keys.authorizationCode(codeHash(code)))).toMatchObject({ user_id: user.id, amr: ['pwd'] });

    const tokens = await client.authorizationCodeGrant(pub.config, back, {
      pkceCodeVerifier: verifier,
      expectedNonce: 'n-page',
      expectedState: 'st-page',
      idTokenExpected: true,
    });
    const idt = await verifyIdToken(tokens.id_token!, pub.clientId);
    expect(idt).toMatchObject({ sub: user.id, amr: ['pwd'] });
    expect(idt).not.toHaveProperty('acr');
    expect(tokens.claims()?.amr).toEqual(['pwd']);
    const stored = await storedItem(svc, keys.refreshToken(refreshTokenHash(tokens.refresh_token!)));
    expect(stored).toMatchObject({ amr: ['pwd'], auth_time: idt.auth_time });
    expect(stored).not.toHaveProperty('acr');

    // Two rotations: every ID token of the chain carries the login's amr and auth_time.
    let refresh = tokens.refresh_token!;
    for (let i = 0; i < 2; i++) {
      const next = await client.refreshTokenGrant(pub.config, refresh);
      const again = await verifyIdToken(next.id_token!, pub.clientId);
      expect(again).toMatchObject({ sub: user.id, amr: ['pwd'], auth_time: idt.auth_time });
      expect(again).not.toHaveProperty('acr');
      expect(again).not.toHaveProperty('nonce');
      refresh = next.refresh_token!;
      expect(await storedItem(svc, keys.refreshToken(refreshTokenHash(refresh)))).toMatchObject({ amr: ['pwd'] });
    }
  });

  it('the password grant: amr ["pwd"]; the otp grant: ["otp"]; password with the code: ["pwd","otp","mfa"]', async () => {
    const { auth, config, clientId } = await loginClient(svc, ['password', 'otp', 'refresh_token']);
    const user = await newUser();
    const pwd = await client.genericGrantRequest(config, 'password', { username: user.username!, password: PASSWORD, scope: 'openid' });
    expect(await verifyIdToken(pwd.id_token!, clientId)).toMatchObject({ sub: user.id, amr: ['pwd'] });

    const { db, config: cfg, now, secretBox } = runtime();
    const otps = otpRepository(db, cfg.tableName, now, secretBox, { maxFailures: cfg.login.otpMaxFailures });
    const enrolled = await newUser();
    const secret = base32Decode(await otps.enroll(enrolled.id))!;
    const otpOnly = await tokenRequest(svc, auth, 'otp', { username: enrolled.username!, otp: totp(secret, new Date()), scope: 'openid' });
    expect(otpOnly.status, JSON.stringify(otpOnly.body)).toBe(200);
    expect(await verifyIdToken(otpOnly.body.id_token as string, clientId)).toMatchObject({ sub: enrolled.id, amr: ['otp'] });

    // The next step's code: the one just used is accepted once (RFC 6238 §5.2).
    const both = await tokenRequest(svc, auth, 'password', {
      username: enrolled.username!,
      password: PASSWORD,
      otp: totp(secret, new Date(Date.now() + 30_000)),
      scope: 'openid',
    });
    expect(both.status, JSON.stringify(both.body)).toBe(200);
    expect(await verifyIdToken(both.body.id_token as string, clientId)).toMatchObject({ sub: enrolled.id, amr: ['pwd', 'otp', 'mfa'] });
  });

  it('a refresh token stored without amr (an older one) gives an ID token without amr and acr, and still works', async () => {
    const user = await newUser();
    const session = await sessionWith(user, ['hwk', 'mfa']);
    await seedConsent(runtime(), user, pub.clientId, ['openid', 'offline_access']);
    const { verifier, challenge } = await pkce();
    const answer = await browserGet(authorizeUrl(svc, codeParams(pub, challenge, { prompt: 'none', acr_values: 'phr' })), session.header);
    const redeemed = await redeemCode(svc, pub, responseParams(answer.location!).get('code')!, verifier);
    expect(redeemed.status).toBe(200);
    expect(await verifyIdToken(redeemed.body.id_token, pub.clientId)).toMatchObject({ amr: ['hwk', 'mfa'], acr: 'phr' });
    const key = keys.refreshToken(refreshTokenHash(redeemed.body.refresh_token));
    await runtime().db.send(new UpdateCommand({ TableName: runtime().config.tableName, Key: key, UpdateExpression: 'REMOVE amr, acr' }));
    const next = await postToken(svc, { grant_type: 'refresh_token', refresh_token: redeemed.body.refresh_token, client_id: pub.clientId });
    expect(next.status).toBe(200);
    const idt = await verifyIdToken(next.body.id_token, pub.clientId);
    expect(idt.sub).toBe(user.id);
    expect(idt).not.toHaveProperty('amr');
    expect(idt).not.toHaveProperty('acr');
  });
});

describe('acr_values (OIDC Core §3.1.2.1; Extended Authentication Profile ACR Values phr, phrh)', () => {
  it('a device-bound passkey session: the first requested value it meets is the acr (unknown values ignored); refreshes keep it', async () => {
    const user = await newUser();
    const session = await sessionWith(user, ['hwk', 'mfa']);
    await seedConsent(runtime(), user, pub.clientId, ['openid', 'offline_access']);
    const { verifier, challenge } = await pkce();
    const answer = await browserGet(
      authorizeUrl(svc, codeParams(pub, challenge, { prompt: 'none', acr_values: 'urn:example:gold phrh phr' })),
      session.header,
    );
    expect(answer.status).toBe(303);
    const code = responseParams(answer.location!).get('code')!;
    expect(await storedItem(svc, keys.authorizationCode(codeHash(code)))).toMatchObject({ amr: ['hwk', 'mfa'], acr: 'phrh' });
    const redeemed = await redeemCode(svc, pub, code, verifier);
    expect(redeemed.status).toBe(200);
    expect(await verifyIdToken(redeemed.body.id_token, pub.clientId)).toMatchObject({ sub: user.id, amr: ['hwk', 'mfa'], acr: 'phrh' });
    expect(await storedItem(svc, keys.refreshToken(refreshTokenHash(redeemed.body.refresh_token)))).toMatchObject({
      amr: ['hwk', 'mfa'],
      acr: 'phrh',
    });
    const refreshed = await client.refreshTokenGrant(pub.config, redeemed.body.refresh_token);
    expect(await verifyIdToken(refreshed.id_token!, pub.clientId)).toMatchObject({ amr: ['hwk', 'mfa'], acr: 'phrh' });
  });

  it('a synced passkey session meets phr, not phrh: acr phr; asking for phrh alone, prompt=none answers login_required', async () => {
    const user = await newUser();
    const session = await sessionWith(user, ['swk', 'mfa']);
    await seedConsent(runtime(), user, pub.clientId, ['openid', 'offline_access']);
    const { verifier, challenge } = await pkce();
    const ok = await browserGet(authorizeUrl(svc, codeParams(pub, challenge, { prompt: 'none', acr_values: 'phrh phr' })), session.header);
    const redeemed = await redeemCode(svc, pub, responseParams(ok.location!).get('code')!, verifier);
    expect(await verifyIdToken(redeemed.body.id_token, pub.clientId)).toMatchObject({ amr: ['swk', 'mfa'], acr: 'phr' });

    const refused = await browserGet(authorizeUrl(svc, codeParams(pub, challenge, { prompt: 'none', acr_values: 'phrh' })), session.header);
    expect(refused.status).toBe(303);
    expect(Object.fromEntries(responseParams(refused.location!))).toEqual({
      error: 'login_required',
      error_description: 'The sign-in does not meet any of the requested acr_values.',
      state: 'st-amr',
      iss: svc.url,
    });
  });

  it('prompt=none + acr_values=phr with a password session: login_required; only unknown values: the session serves, no acr', async () => {
    const user = await newUser();
    const session = await sessionWith(user, ['pwd']);
    await seedConsent(runtime(), user, pub.clientId, ['openid', 'offline_access']);
    const { verifier, challenge } = await pkce();
    const refused = await browserGet(authorizeUrl(svc, codeParams(pub, challenge, { prompt: 'none', acr_values: 'phr' })), session.header);
    expect(responseParams(refused.location!).get('error')).toBe('login_required');
    expect(refused.location!.startsWith(`${REDIRECT}?`)).toBe(true);

    const unknown = await browserGet(
      authorizeUrl(svc, codeParams(pub, challenge, { prompt: 'none', acr_values: 'urn:mace:incommon:iap:silver' })),
      session.header,
    );
    const redeemed = await redeemCode(svc, pub, responseParams(unknown.location!).get('code')!, verifier);
    const idt = await verifyIdToken(redeemed.body.id_token, pub.clientId);
    expect(idt.amr).toEqual(['pwd']);
    expect(idt).not.toHaveProperty('acr');
  });

  it('acr_values=phr and a password login through the interaction: the interaction keeps acr_values; the ID token has amr, no acr', async () => {
    const user = await newUser();
    const session = await sessionWith(user, ['pwd']);
    const { verifier, challenge } = await pkce();
    const started = await browserGet(authorizeUrl(svc, codeParams(pub, challenge, { acr_values: 'phr x phr' })), session.header);
    const id = interactionOf(started, svc);
    const stored = await repos().interactions.readInteraction(id);
    expect(stored?.acr_values).toEqual(['phr']);
    expect((stored!.payload as { request: Record<string, unknown> }).request.acrValues).toEqual(['phr']);
    // What the login page records after a password sign-in, then the consent.
    await repos().interactions.recordLogin(id, { user_id: user.id, session_id: session.id, auth_time: session.authTime, amr: ['pwd'] });
    await repos().interactions.recordDecision(id, session.id, { decision: 'allow', granted_scopes: ['openid', 'offline_access'] });
    const back = await browserGet(`${svc.url}/authorize/resume?interaction=${id}`, session.header);
    const code = responseParams(back.location!).get('code')!;
    const item = await storedItem(svc, keys.authorizationCode(codeHash(code)));
    expect(item?.amr).toEqual(['pwd']);
    expect(item).not.toHaveProperty('acr');
    const redeemed = await redeemCode(svc, pub, code, verifier);
    const idt = await verifyIdToken(redeemed.body.id_token, pub.clientId);
    expect(idt).toMatchObject({ sub: user.id, amr: ['pwd'], auth_time: session.authTime });
    expect(idt).not.toHaveProperty('acr');
  });

  it('the login page: a password session does not stand in for acr_values=phr (the form shows); a passkey session does', async () => {
    const user = await newUser();
    const { challenge } = await pkce();
    const password = await sessionWith(user, ['pwd']);
    const asked = interactionOf(
      await browserGet(authorizeUrl(svc, codeParams(pub, challenge, { acr_values: 'phr' })), password.header),
      svc,
    );
    const form = await browserGet(`${svc.url}/login?interaction=${asked}`, password.header);
    expect(form.status).toBe(200);
    expect(form.body).toContain('name="password"');
    expect((await repos().interactions.readInteraction(asked))?.user_id).toBeUndefined();
    // Without acr_values the same session serves.
    const plain = interactionOf(await browserGet(authorizeUrl(svc, codeParams(pub, challenge)), password.header), svc);
    expect((await browserGet(`${svc.url}/login?interaction=${plain}`, password.header)).status).toBe(303);

    const passkey = await sessionWith(user, ['swk', 'mfa']);
    const again = interactionOf(
      await browserGet(authorizeUrl(svc, codeParams(pub, challenge, { acr_values: 'phr' })), passkey.header),
      svc,
    );
    const served = await browserGet(`${svc.url}/login?interaction=${again}`, passkey.header);
    expect(served.status).toBe(303);
    expect(served.location).toBe(`${svc.url}/consent?interaction=${again}`);
    expect(await repos().interactions.readInteraction(again)).toMatchObject({
      user_id: user.id,
      session_id: passkey.id,
      amr: ['swk', 'mfa'],
    });
  });

  it('implicit ID tokens (response_type=id_token) carry amr and acr too', async () => {
    const user = await newUser();
    const session = await sessionWith(user, ['hwk', 'mfa']);
    await seedConsent(runtime(), user, conf.clientId, ['openid']);
    const answer = await browserGet(
      authorizeUrl(svc, {
        client_id: conf.clientId,
        redirect_uri: REDIRECT,
        response_type: 'id_token',
        scope: 'openid',
        nonce: 'n-imp',
        state: 'st-imp',
        prompt: 'none',
        acr_values: 'phr',
      }),
      session.header,
    );
    expect(answer.status).toBe(303);
    const params = responseParams(answer.location!);
    expect(params.get('access_token')).toBeNull();
    expect(await verifyIdToken(params.get('id_token')!, conf.clientId)).toMatchObject({
      sub: user.id,
      nonce: 'n-imp',
      amr: ['hwk', 'mfa'],
      acr: 'phr',
    });
  });

  it('bounds: more than 10 values, a value over 128 characters, or over 2048 in all: invalid_request to the client; at /par: 400 JSON', async () => {
    const { challenge } = await pkce();
    const cases: [string, string][] = [
      [Array.from({ length: 11 }, (_, i) => `v${i}`).join(' '), 'acr_values: at most 10 values of at most 128 characters each.'],
      [`phr ${'a'.repeat(129)}`, 'acr_values: at most 10 values of at most 128 characters each.'],
      ['phr '.repeat(520), 'acr_values: is not valid.'],
      ['phr\u0000', 'acr_values: is not valid.'],
    ];
    for (const [acr_values, description] of cases) {
      const answer = await browserGet(authorizeUrl(svc, codeParams(pub, challenge, { acr_values })));
      expect(answer.status).toBe(303);
      expect(Object.fromEntries(responseParams(answer.location!))).toEqual({
        error: 'invalid_request',
        error_description: description,
        state: 'st-amr',
        iss: svc.url,
      });
      const pushed = await fetch(`${svc.url}/par`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: conf.auth! },
        body: new URLSearchParams({ ...codeParams(conf, challenge), client_id: conf.clientId, acr_values }),
      });
      expect(pushed.status).toBe(400);
      expect(pushed.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await pushed.json()).toEqual({
        code: 'invalid_request',
        message: description,
        error: 'invalid_request',
        error_description: description,
      });
    }
    // Sent twice (RFC 6749 §3.1: parameters MUST NOT repeat): refused, never merged.
    const twice = await browserGet(`${authorizeUrl(svc, codeParams(pub, challenge, { acr_values: 'phr' }))}&acr_values=phrh`);
    expect(Object.fromEntries(responseParams(twice.location!))).toMatchObject({
      error: 'invalid_request',
      error_description: 'acr_values: must be sent once, as a string.',
    });
    // Exactly at the bounds: accepted (a login page, the values we do not know dropped).
    const ten = [...Array.from({ length: 9 }, () => 'b'.repeat(128)), 'phr'].join(' ');
    const started = await browserGet(authorizeUrl(svc, codeParams(pub, challenge, { acr_values: ten })));
    expect((await repos().interactions.readInteraction(interactionOf(started, svc)))?.acr_values).toEqual(['phr']);
  });

  it('a pushed request keeps acr_values (RFC 9126): prompt=none with a password session is login_required', async () => {
    const user = await newUser();
    const session = await sessionWith(user, ['pwd']);
    await seedConsent(runtime(), user, conf.clientId, ['openid']);
    const { challenge } = await pkce();
    const pushed = await fetch(`${svc.url}/par`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: conf.auth! },
      body: new URLSearchParams({ ...codeParams(conf, challenge), scope: 'openid', prompt: 'none', acr_values: 'phr' }),
    });
    expect(pushed.status).toBe(201);
    const { request_uri } = (await pushed.json()) as { request_uri: string };
    const answer = await browserGet(authorizeUrl(svc, { client_id: conf.clientId, request_uri }), session.header);
    expect(responseParams(answer.location!).get('error')).toBe('login_required');
  });
});

describe('device flow and discovery', () => {
  it('the device flow: the amr of the login that approved it reaches the ID token (RFC 8628 §3.5)', async () => {
    const { clientId } = await flowClient(svc, { is_public: true, grant_types: ['device_code'] });
    const user = await newUser();
    const session = await sessionWith(user, ['swk', 'mfa']);
    const started = await fetch(`${svc.url}/device_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, scope: 'openid' }),
    });
    const device = (await started.json()) as { device_code: string; user_code: string };
    const jar = new Jar();
    jar.cookies.set('session', session.header.slice('session='.length));
    const form = await send(jar, `${svc.url}/device`);
    expect(form.status).toBe(200);
    const submitted = await send(jar, `${svc.url}/device`, { csrf_token: csrfOf(form.body)!, user_code: device.user_code });
    expect(submitted.status).toBe(303);
    const id = new URL(submitted.location!).searchParams.get('interaction')!;
    // What the login and consent pages record for this session.
    await repos().interactions.recordLogin(id, {
      user_id: user.id,
      session_id: session.id,
      auth_time: session.authTime,
      amr: ['swk', 'mfa'],
    });
    await repos().interactions.recordDecision(id, session.id, { decision: 'allow', granted_scopes: ['openid'] });
    const resumed = await send(jar, `${svc.url}/device/resume?interaction=${id}`);
    expect(resumed.status).toBe(200);
    expect(await storedItem(svc, keys.deviceCode(deviceCodeHash(device.device_code)))).toMatchObject({
      status: 'approved',
      amr: ['swk', 'mfa'],
    });
    const polled = await postToken(svc, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: device.device_code,
      client_id: clientId,
    });
    expect(polled.status).toBe(200);
    const idt = await verifyIdToken(polled.body.id_token, clientId);
    expect(idt).toMatchObject({ sub: user.id, amr: ['swk', 'mfa'], auth_time: session.authTime });
    expect(idt).not.toHaveProperty('acr');
  });

  it('discovery lists acr_values_supported [phr, phrh] and amr, acr among claims_supported', async () => {
    const res = await fetch(`${svc.url}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, string[]>;
    expect(doc.acr_values_supported).toEqual(['phr', 'phrh']);
    expect(doc.claims_supported).toEqual(expect.arrayContaining(['amr', 'acr', 'auth_time']));
    expect(pub.config.serverMetadata().acr_values_supported).toEqual(['phr', 'phrh']);
  });
});
