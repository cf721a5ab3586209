import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { codeHash } from '#shared/store/sessions/authorization-codes-repository.ts';
import { seedSession } from '../support/browser/seed-session.ts';
import {
  authorizeThrough,
  type FlowClient,
  flowClient,
  pkce,
  postToken,
  REDIRECT,
  responseParams,
} from '../support/oauth/authorize-flow.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * Both spellings of the code grant's parameters at /token (spec 4.2, docs/tokens.md "Code
 * parameters: both spellings"): `code` or `authorization_code`, `code_verifier` or
 * `authorization_code_verifier`, with grant_type `authorization_code` or `authorization_code_verifier`.
 * Same value in both spellings: accepted; different values: 400 before the code is touched; every
 * error names the spelling the client sent.
 */
let svc: TestService;
let conf: FlowClient;
let pub: FlowClient;
let jwks: ReturnType<typeof createRemoteJWKSet>;

beforeAll(async () => {
  svc = await startTestService();
  conf = await flowClient(svc);
  pub = await flowClient(svc, { is_public: true });
  jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
});
afterAll(async () => svc?.stop());

/** A fresh code with its PKCE verifier, issued through /authorize to `c`. */
async function issueCode(c: FlowClient) {
  const user = await putUser(svc.stack.runtime, { email: `cp.${Math.random().toString(36).slice(2, 10)}@example.com` });
  const session = await seedSession(svc.stack.runtime, user);
  const { verifier, challenge } = await pkce();
  const params = {
    client_id: c.clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid email',
    state: 's',
    nonce: 'n',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  const answer = await authorizeThrough(svc, params, session, user);
  expect(answer.status, answer.body).toBe(303);
  return { user, verifier, code: responseParams(answer.location!).get('code')! };
}

/** POST /token as `c` (Basic for confidential, client_id for public) with exactly these parameters. */
const redeem = (c: FlowClient, params: Record<string, string>) =>
  postToken(svc, { redirect_uri: REDIRECT, ...params, ...(c.auth ? {} : { client_id: c.clientId }) }, c.auth);

const usedAt = async (code: string) => (await storedItem(svc, keys.authorizationCode(codeHash(code))))?.used_at;

async function expectTokens(res: { status: number; body: Record<string, any> }, c: FlowClient, userId: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), id_token: expect.any(String) });
  const id = await jwtVerify(res.body.id_token, jwks, { issuer: svc.url, audience: c.clientId, algorithms: ['RS256'] });
  expect(id.payload.sub).toBe(userId);
}

const invalidRequest = (description: string) => ({
  status: 400,
  body: expect.objectContaining({ error: 'invalid_request', error_description: description }),
});

describe('both spellings redeem a code (spec 4.2, RFC 6749 §4.1.3, RFC 7636 §4.5)', () => {
  for (const grant_type of ['authorization_code', 'authorization_code_verifier']) {
    for (const codeName of ['code', 'authorization_code']) {
      for (const verifierName of ['code_verifier', 'authorization_code_verifier']) {
        it(`grant_type=${grant_type} with ${codeName} and ${verifierName}`, async () => {
          for (const c of [conf, pub]) {
            const { user, verifier, code } = await issueCode(c);
            await expectTokens(await redeem(c, { grant_type, [codeName]: code, [verifierName]: verifier }), c, user.id);
            expect(await usedAt(code)).toEqual(expect.any(String));
          }
        });
      }
    }
  }

  it("the issue's request: grant_type=authorization_code_verifier&authorization_code=…&authorization_code_verifier=…", async () => {
    const { user, verifier, code } = await issueCode(conf);
    const res = await redeem(conf, {
      grant_type: 'authorization_code_verifier',
      authorization_code: code,
      authorization_code_verifier: verifier,
    });
    await expectTokens(res, conf, user.id);
  });

  it('both spellings with the same value are that value: accepted', async () => {
    const { user, verifier, code } = await issueCode(conf);
    const res = await redeem(conf, {
      grant_type: 'authorization_code',
      code,
      authorization_code: code,
      code_verifier: verifier,
      authorization_code_verifier: verifier,
    });
    await expectTokens(res, conf, user.id);
  });
});

describe('refused combinations: 400 naming the parameter, the code left unused', () => {
  it('two different codes: 400 invalid_request naming authorization_code, neither code used', async () => {
    const a = await issueCode(conf);
    const b = await issueCode(conf);
    const res = await redeem(conf, {
      grant_type: 'authorization_code',
      code: a.code,
      authorization_code: b.code,
      code_verifier: a.verifier,
    });
    expect(res).toEqual(
      invalidRequest('body.authorization_code: must equal code when both are sent (they are two names of one parameter)'),
    );
    expect(await usedAt(a.code)).toBeUndefined();
    expect(await usedAt(b.code)).toBeUndefined();
    // The code still works afterwards: the refusal came before it was touched.
    await expectTokens(await redeem(conf, { grant_type: 'authorization_code', code: a.code, code_verifier: a.verifier }), conf, a.user.id);
  });

  it('two different verifiers: 400 naming authorization_code_verifier, the code unused', async () => {
    const { user, verifier, code } = await issueCode(pub);
    const other = (await pkce()).verifier;
    for (const grant_type of ['authorization_code', 'authorization_code_verifier']) {
      const res = await redeem(pub, { grant_type, code, code_verifier: verifier, authorization_code_verifier: other });
      expect(res, grant_type).toEqual(
        invalidRequest(
          'body.authorization_code_verifier: must equal code_verifier when both are sent (they are two names of one parameter)',
        ),
      );
    }
    expect(await usedAt(code)).toBeUndefined();
    await expectTokens(
      await redeem(pub, { grant_type: 'authorization_code', authorization_code: code, code_verifier: verifier }),
      pub,
      user.id,
    );
  });

  it('no code: "is required" under the spelling of the grant type', async () => {
    expect(await redeem(conf, { grant_type: 'authorization_code', code_verifier: (await pkce()).verifier })).toEqual(
      invalidRequest('body.code: is required'),
    );
    expect(await redeem(conf, { grant_type: 'authorization_code_verifier', authorization_code_verifier: (await pkce()).verifier })).toEqual(
      invalidRequest('body.authorization_code: is required'),
    );
    expect(await redeem(conf, { grant_type: 'authorization_code', code: '', authorization_code: '' })).toEqual(
      invalidRequest('body.code: is required'),
    );
  });

  it('authorization_code_verifier without a verifier asks for it by the spelling the code came in', async () => {
    const { code } = await issueCode(conf);
    expect(await redeem(conf, { grant_type: 'authorization_code_verifier', authorization_code: code })).toEqual(
      invalidRequest('body.authorization_code_verifier: is required.'),
    );
    expect(await redeem(conf, { grant_type: 'authorization_code_verifier', code })).toEqual(
      invalidRequest('body.code_verifier: is required.'),
    );
    expect(await usedAt(code)).toBeUndefined();
  });

  it('a malformed or oversized value is refused under its own name before anything is read', async () => {
    const { code } = await issueCode(conf);
    expect(await redeem(conf, { grant_type: 'authorization_code', code, authorization_code_verifier: 'short' })).toEqual(
      invalidRequest('body.authorization_code_verifier: must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1)'),
    );
    const long = 'a'.repeat(4097);
    expect((await redeem(conf, { grant_type: 'authorization_code', authorization_code: long })).body.error_description).toMatch(
      /^body\.authorization_code: /,
    );
    expect(await usedAt(code)).toBeUndefined();
  });

  it('an invalid code is named by the spelling the client sent', async () => {
    const { verifier } = await issueCode(conf);
    const message = (name: string) =>
      `body.${name}: is invalid, expired, used, or was issued for another client, redirect_uri or code_verifier.`;
    for (const name of ['code', 'authorization_code']) {
      const res = await redeem(conf, { grant_type: 'authorization_code', [name]: 'not-a-code', code_verifier: verifier });
      expect(res, name).toEqual({
        status: 400,
        body: expect.objectContaining({ error: 'invalid_grant', error_description: message(name) }),
      });
    }
  });
});

describe('single use across spellings (docs/design.md §3.7)', () => {
  it('20 parallel redemptions of one code, half per spelling: exactly one wins', async () => {
    const { user, verifier, code } = await issueCode(conf);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        redeem(
          conf,
          i % 2 === 0
            ? { grant_type: 'authorization_code', code, code_verifier: verifier }
            : { grant_type: 'authorization_code_verifier', authorization_code: code, authorization_code_verifier: verifier },
        ),
      ),
    );
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    await expectTokens(won[0]!, conf, user.id);
    for (const lost of answers.filter((a) => a.status !== 200)) {
      expect(lost.status).toBe(400);
      expect(lost.body.error).toBe('invalid_grant');
    }
    expect(await usedAt(code)).toEqual(expect.any(String));
  });

  it('a code redeemed under one spelling is reuse under the other', async () => {
    const { verifier, code } = await issueCode(conf);
    expect((await redeem(conf, { grant_type: 'authorization_code', code, code_verifier: verifier })).status).toBe(200);
    const again = await redeem(conf, {
      grant_type: 'authorization_code_verifier',
      authorization_code: code,
      authorization_code_verifier: verifier,
    });
    expect(again).toEqual({
      status: 400,
      body: expect.objectContaining({
        error: 'invalid_grant',
        error_description:
          'body.authorization_code: is invalid, expired, used, or was issued for another client, redirect_uri or code_verifier.',
      }),
    });
  });
});
