import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { codeHash } from '#shared/store/sessions/authorization-codes-repository.ts';
import { finishInteraction, readInteraction, seedSession } from '../support/browser/seed-session.ts';
import {
  type Answer,
  authorizeThrough,
  authorizeUrl,
  browserGet,
  type FlowClient,
  flowClient,
  interactionOf,
  isActive,
  pkce,
  postToken,
  REDIRECT,
  redeemCode,
  responseParams,
} from '../support/oauth/authorize-flow.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * Attacks on /authorize and the code grant, kept as tests (RFC 9700 §4; docs/contract.md §7.4, §7.8, §8):
 * redirect-URI bypasses, reflected markup, PKCE downgrades, code reuse and redemption races,
 * `alg: none`, and an interaction carried to another browser.
 */
let svc: TestService;
let pub: FlowClient;
let conf: FlowClient;

beforeAll(async () => {
  svc = await startTestService();
  pub = await flowClient(svc, { is_public: true });
  conf = await flowClient(svc, { grant_types: ['authorization_code', 'refresh_token'] });
});
afterAll(async () => svc?.stop());

const runtime = () => svc.stack.runtime;
const newUser = () => putUser(runtime());
const base = (c: FlowClient, extra: Record<string, string> = {}) => ({
  client_id: c.clientId,
  redirect_uri: REDIRECT,
  response_type: 'code',
  scope: 'openid',
  state: 'st',
  ...extra,
});
const token = (params: Record<string, string>, authorization?: string) => postToken(svc, params, authorization);
const active = (t: string) => isActive(svc, t);
const redeem = (code: string, verifier: string | undefined, c: FlowClient = pub) => redeemCode(svc, c, code, verifier);
const codeFor = async (c: FlowClient, extra: Record<string, string>) => {
  const user = await newUser();
  const answer = await authorizeThrough(svc, base(c, extra), await seedSession(runtime(), user), user);
  expect(answer.status, answer.body).toBe(303);
  return responseParams(answer.location!).get('code')!;
};

/** An HTML error page, never a redirect (docs/contract.md §7.4, §7.8), that repeats nothing of the request (§8). */
function expectErrorPage(answer: Answer, sent: string[] = []) {
  expect(answer.status).toBe(400);
  expect(answer.location).toBeNull();
  expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(answer.headers.get('cache-control')).toBe('no-store');
  for (const value of sent) expect(answer.body).not.toContain(value);
}

describe('redirect-URI bypass corpus: refused with a page, never redirected (RFC 9700 §4.1)', () => {
  const corpus = [
    ['trailing slash', `${REDIRECT}/`],
    ['host case', 'https://APP.example.com/callback'],
    ['path case', 'https://app.example.com/Callback'],
    ['scheme case', 'HTTPS://app.example.com/callback'],
    ['extra query', `${REDIRECT}?next=https://evil.example`],
    ['encoded traversal', `${REDIRECT}/..%2f..%2fevil`],
    ['dot segments', `${REDIRECT}/../../evil`],
    ['userinfo @host', 'https://app.example.com@evil.example/callback'],
    ['userinfo before the host', 'https://evil.example@app.example.com/callback'],
    ['other port', 'https://app.example.com:8443/callback'],
    ['explicit default port', 'https://app.example.com:443/callback'],
    ['fragment', `${REDIRECT}#x`],
    ['registered prefix + suffix', `${REDIRECT}evil`],
    ['registered prefix + path', `${REDIRECT}/evil`],
    ['suffix domain', 'https://app.example.com.evil.example/callback'],
    ['http downgrade', 'http://app.example.com/callback'],
    ['percent-encoded path', 'https://app.example.com/%63allback'],
    ['javascript scheme', 'javascript://app.example.com/%0aalert(1)'],
  ] as const;
  for (const [name, uri] of corpus) {
    it(name, async () => {
      const answer = await browserGet(authorizeUrl(svc, base(pub, { redirect_uri: uri })));
      expectErrorPage(answer, [uri]);
      expect(answer.body).toContain('redirect_uri: is not registered for this client.');
    });
  }

  it('no redirect_uri, an unknown client, no client, a repeated client_id: pages too', async () => {
    const { redirect_uri: _, ...withoutUri } = base(pub);
    expectErrorPage(await browserGet(authorizeUrl(svc, withoutUri)));
    expectErrorPage(await browserGet(authorizeUrl(svc, base(pub, { client_id: '0190b1d2-0000-7000-8000-000000000000' }))));
    const { client_id: __, ...withoutClient } = base(pub);
    expectErrorPage(await browserGet(authorizeUrl(svc, withoutClient)));
    expectErrorPage(await browserGet(`${authorizeUrl(svc, base(pub))}&client_id=${conf.clientId}`));
  });

  it('<script> in reflected values is never markup on the page', async () => {
    const attack = '<script>alert(1)</script>';
    for (const params of [
      base(pub, { client_id: attack }),
      base(pub, { redirect_uri: `${REDIRECT}${attack}` }),
      base(pub, { redirect_uri: attack }),
    ]) {
      const answer = await browserGet(authorizeUrl(svc, params));
      expectErrorPage(answer, ['<script', 'alert(1)']);
    }
  });

  it('a registered javascript: URI is refused as a target', async () => {
    const evil = await flowClient(svc, { is_public: true, redirect_uris: ['javascript://x/%0aalert(1)'] });
    const { challenge } = await pkce();
    const answer = await browserGet(
      authorizeUrl(
        svc,
        base(evil, { redirect_uri: 'javascript://x/%0aalert(1)', code_challenge: challenge, code_challenge_method: 'S256' }),
      ),
    );
    expectErrorPage(answer, ['alert(1)', 'javascript']);
  });
});

describe('errors after the redirect URI is verified go to the client, with state and iss', () => {
  it('a repeated parameter, a malformed scope, an unknown audience, a request object', async () => {
    const { challenge } = await pkce();
    const pk = { code_challenge: challenge, code_challenge_method: 'S256' };
    const cases: [string, string][] = [
      [`${authorizeUrl(svc, base(pub, pk))}&scope=email`, 'invalid_request'],
      [authorizeUrl(svc, base(pub, { ...pk, scope: 'openid "x' })), 'invalid_scope'],
      [authorizeUrl(svc, base(pub, { ...pk, audience: 'https://nothing.example/' })), 'invalid_target'],
      [authorizeUrl(svc, base(pub, { ...pk, request: 'eyJhbGciOiJub25lIn0.e30.' })), 'request_not_supported'],
      [authorizeUrl(svc, base(pub, { ...pk, response_type: 'code id_token' })), 'unsupported_response_type'],
      [authorizeUrl(svc, base(pub, { ...pk, prompt: 'select_account' })), 'invalid_request'],
      [authorizeUrl(svc, base(pub, { ...pk, max_age: '-1' })), 'invalid_request'],
    ];
    for (const [url, error] of cases) {
      const answer = await browserGet(url);
      expect(answer.status, url).toBe(303);
      expect(Object.fromEntries(responseParams(answer.location!)), url).toMatchObject({ error, state: 'st', iss: svc.url });
    }
  });
});

describe('PKCE (RFC 7636, docs/contract.md §7.8): S256 only, no downgrade', () => {
  it('plain, a challenge without method, a method without challenge, a malformed challenge, a public client without PKCE', async () => {
    const { challenge } = await pkce();
    const attempts: Record<string, string>[] = [
      { code_challenge: challenge, code_challenge_method: 'plain' },
      { code_challenge: challenge },
      { code_challenge_method: 'S256' },
      { code_challenge: 'short', code_challenge_method: 'S256' },
      {},
    ];
    for (const extra of attempts) {
      const answer = await browserGet(authorizeUrl(svc, base(pub, extra)));
      expect(responseParams(answer.location!).get('error'), JSON.stringify(extra)).toBe('invalid_request');
    }
  });

  it('a wrong verifier or none is refused and does not burn the code; the right one then works', async () => {
    const { verifier, challenge } = await pkce();
    const code = await codeFor(pub, { code_challenge: challenge, code_challenge_method: 'S256' });
    expect(await redeem(code, client.randomPKCECodeVerifier())).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await redeem(code, undefined)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await redeem(code, 'short')).body).toMatchObject({ error: 'invalid_request' });
    expect((await redeem(code, verifier)).status).toBe(200);
  });

  it('a verifier for a code issued without a challenge is refused (RFC 9700 §2.1.1)', async () => {
    const code = await codeFor(conf, {});
    expect(await redeem(code, client.randomPKCECodeVerifier(), conf)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await redeem(code, undefined, conf)).status).toBe(200);
  });
});

describe('codes are single use (RFC 6749 §4.1.2)', () => {
  it('a second redemption is refused and revokes what the first issued: refresh family and access tokens', async () => {
    const { verifier, challenge } = await pkce();
    const code = await codeFor(pub, { code_challenge: challenge, code_challenge_method: 'S256', scope: 'openid offline_access' });
    const first = await redeem(code, verifier);
    expect(first.status).toBe(200);
    expect(await active(first.body.access_token)).toBe(true);
    const second = await redeem(code, verifier);
    expect(second).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await active(first.body.access_token)).toBe(false);
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: pub.clientId });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const stored = await storedItem(svc, keys.authorizationCode(codeHash(code)));
    expect((await storedItem(svc, keys.refreshFamily(stored!.sid)))?.revoked).toBe(true);
  });

  it('20 parallel redemptions: exactly one wins, and the losers revoke its tokens', async () => {
    const { verifier, challenge } = await pkce();
    const code = await codeFor(pub, { code_challenge: challenge, code_challenge_method: 'S256' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => redeem(code, verifier)));
    const winners = answers.filter((a) => a.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400 && a.body.error === 'invalid_grant')).toHaveLength(19);
    expect(await active(winners[0]!.body.access_token)).toBe(false);
  });
});

describe('alg: none and other forgeries', () => {
  it('a code-flow access token re-signed with alg none is inactive; ours are signed with a kid (ES256 access, RS256 ID token)', async () => {
    const { verifier, challenge } = await pkce();
    const code = await codeFor(pub, { code_challenge: challenge, code_challenge_method: 'S256' });
    const { access_token, id_token } = (await redeem(code, verifier)).body;
    // The ID token follows the client's id_token_signed_response_alg, RS256 when unset (OIDC Registration §2).
    for (const [t, alg] of [
      [access_token, 'ES256'],
      [id_token, 'RS256'],
    ]) {
      const header = JSON.parse(Buffer.from(t.split('.')[0], 'base64url').toString());
      expect(header).toMatchObject({ alg, kid: expect.any(String) });
    }
    const [, payload] = access_token.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`;
    expect(await active(none)).toBe(false);
    expect(await active(access_token)).toBe(true);
  });
});

describe('resume is bound to the browser that signed in', () => {
  it('another browser, no cookie, or an unfinished interaction: a page, and the interaction stays for its browser; resumed once', async () => {
    const { challenge } = await pkce();
    const user = await newUser();
    const mine = await seedSession(runtime(), user);
    const theirs = await seedSession(runtime(), await newUser());
    const id = interactionOf(
      await browserGet(authorizeUrl(svc, base(pub, { code_challenge: challenge, code_challenge_method: 'S256' })), mine.header),
      svc,
    );
    const resume = `${svc.url}/authorize/resume?interaction=${id}`;
    expectErrorPage(await browserGet(resume, mine.header)); // not finished yet
    await finishInteraction(runtime(), id, mine, user.id, 'allow');
    expectErrorPage(await browserGet(resume, theirs.header));
    expectErrorPage(await browserGet(resume));
    expectErrorPage(await browserGet(resume, `session=${theirs.cookie}; session=${mine.cookie}`));
    expect(await readInteraction(runtime(), id)).toMatchObject({ id, user_id: user.id, session_id: mine.id, decision: 'allow' });
    const done = await browserGet(resume, mine.header);
    expect(responseParams(done.location!).get('code')).toEqual(expect.any(String));
    expect(await readInteraction(runtime(), id)).toBeUndefined();
    expectErrorPage(await browserGet(resume, mine.header));
    expectErrorPage(await browserGet(`${svc.url}/authorize/resume?interaction=<script>`), ['<script>']);
  });
});
