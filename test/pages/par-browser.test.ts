import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { secretHash } from '#shared/store/core/secret-hash.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { launchChromium } from '../support/service/chromium.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * Pushed authorization requests through the real hosted pages in headless Chromium (RFC 9126;
 * docs/client-authentication.md "Pushed authorization requests (PAR)"): the relying party pushes,
 * the browser opens /authorize with client_id and request_uri alone, logs in and consents, and
 * the code reaches a loopback callback (RFC 8252 §7.3). A confidential client with openid-client
 * and a public one with oauth4webapi; the tokens are verified with jose against our JWKS.
 */
let svc: TestService;
let browser: Browser;
let rp: Server;
let callback: string;
let jwks: ReturnType<typeof createRemoteJWKSet>;
const PASSWORD = 'amber-lantern-47-quiver';

async function newClient(isPublic: boolean) {
  const call = managementCaller(svc.url, await svc.managementToken());
  const created = await call('POST', '/clients', {
    body: {
      client_name: isPublic ? 'par public' : 'par confidential',
      is_public: isPublic,
      client_metadata: {
        grant_types: ['authorization_code', 'refresh_token'],
        urls: { redirect_uris: ['http://127.0.0.1/cb'] },
        id_token_signed_response_alg: 'ES256',
        require_pushed_authorization_requests: true,
      },
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { clientId: created.body.id as string, secret: created.body.client_secret as string | undefined };
}

beforeAll(async () => {
  svc = await startTestService();
  browser = await launchChromium();
  rp = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>RP</title><p>signed in</p>'),
  );
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  callback = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/cb`;
  jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
});
afterAll(async () => {
  await browser?.close();
  rp?.close();
  await svc?.stop();
});

const newUser = async () =>
  putUser(svc.stack.runtime, {
    username: `par_${Math.random().toString(36).slice(2, 10)}`,
    email: `par${Math.random().toString(36).slice(2, 10)}@example.com`,
    password_hash: await hashPassword(PASSWORD),
  });

/** The hosted login and consent pages, as a person fills them in; then the callback. */
async function signIn(page: Page, authorizeUrl: string, username: string): Promise<URL> {
  await page.goto(authorizeUrl);
  await page.waitForURL(/\/login\?interaction=/);
  await page.fill('#username', username);
  await page.fill('#password', PASSWORD);
  await page.click('button[type="submit"]');
  await page.waitForURL(/\/consent\?interaction=/);
  // The reload a user may do on the login or consent page needs no request_uri: the interaction holds the request.
  await page.reload();
  await page.click('button[name="decision"][value="allow"]');
  await page.waitForURL((u) => u.href.startsWith(callback));
  return new URL(page.url());
}

describe('PAR in Chromium (real login and consent pages)', () => {
  it('confidential client, openid-client: buildAuthorizationUrlWithPAR → login → consent → code → tokens', async () => {
    const app = await newClient(false);
    const config = await client.discovery(
      new URL(svc.url),
      app.clientId,
      { id_token_signed_response_alg: 'ES256' },
      client.ClientSecretBasic(app.secret!),
      { execute: [client.allowInsecureRequests] },
    );
    const user = await newUser();
    const context = await browser.newContext();
    const page = await context.newPage();
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = await client.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: callback,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const back = await signIn(page, url.href, user.username!);
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(svc.url);
    // Taken once, at /authorize.
    expect(await storedItem(svc, keys.pushedRequest(secretHash(url.searchParams.get('request_uri')!)))).toBeUndefined();
    const tokens = await client.authorizationCodeGrant(config, back, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const idt = await jwtVerify(tokens.id_token!, jwks, { issuer: svc.url, audience: app.clientId, algorithms: ['ES256'] });
    expect(idt.payload).toMatchObject({ sub: user.id, nonce, email: user.email });
    const access = await jwtVerify(tokens.access_token, jwks, { issuer: svc.url, audience: `${svc.url}/userinfo` });
    expect(access.payload).toMatchObject({ sub: user.id, client_id: app.clientId });

    // The same request_uri again in the browser: the error page, no navigation to the client.
    const again = await page.goto(url.href);
    expect(again!.status()).toBe(400);
    expect(page.url().startsWith(svc.url)).toBe(true);
    expect(await page.textContent('[role="alert"]')).toContain('request_uri: is unknown, was already used');
    await context.close();
  });

  it('public client, oauth4webapi: pushedAuthorizationRequest → login → consent → code → tokens; /authorize alone is refused', async () => {
    const app = await newClient(true);
    const issuer = new URL(svc.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }));
    const c: oauth.Client = { client_id: app.clientId, id_token_signed_response_alg: 'ES256' };
    const user = await newUser();
    const context = await browser.newContext();
    const page = await context.newPage();
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const params = {
      redirect_uri: callback,
      response_type: 'code',
      scope: 'openid email',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    };

    // The client requires PAR: the same parameters sent to /authorize directly come back as invalid_request.
    await page.goto(`${as.authorization_endpoint}?${new URLSearchParams({ client_id: app.clientId, ...params })}`);
    await page.waitForURL((u) => u.href.startsWith(callback));
    const refused = new URL(page.url()).searchParams;
    expect(refused.get('error')).toBe('invalid_request');
    expect(refused.get('state')).toBe(state);

    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      c,
      await oauth.pushedAuthorizationRequest(as, c, oauth.None(), params, { [oauth.allowInsecureRequests]: true }),
    );
    const authorizeUrl = new URL(as.authorization_endpoint!);
    authorizeUrl.search = new URLSearchParams({ client_id: app.clientId, request_uri: pushed.request_uri }).toString();
    const back = await signIn(page, authorizeUrl.href, user.username!);
    const callbackParams = oauth.validateAuthResponse(as, c, back, state);
    const response = await oauth.authorizationCodeGrantRequest(as, c, oauth.None(), callbackParams, callback, verifier, {
      [oauth.allowInsecureRequests]: true,
    });
    const tokens = await oauth.processAuthorizationCodeResponse(as, c, response, { expectedNonce: nonce, requireIdToken: true });
    expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({ sub: user.id, nonce });
    const idt = await jwtVerify(tokens.id_token!, jwks, { issuer: svc.url, audience: app.clientId, algorithms: ['ES256'] });
    expect(idt.payload.email).toBe(user.email);
    await context.close();
  });
});
