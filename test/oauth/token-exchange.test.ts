import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderView } from '#shared/records/identity-provider-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { type ExternalProvider, startExternalProvider } from '../support/oauth/external-provider.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import {
  ACCESS_TOKEN_TYPE,
  type Answer,
  EXCHANGE,
  ID_TOKEN_TYPE,
  JWT_TYPE,
  linkedUserId,
  postToken,
  registerProvider,
  storedIdentities,
  uniqueEmail,
  usersWithEmail,
} from '../support/oauth/token-exchange.ts';
import { userToken } from '../support/oauth/user-tokens.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';
import { createTenant, managementCaller } from '../support/service/management-api.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * RFC 8693 token exchange at /token, end to end (docs/contract.md §5.1, §7.7; docs/federation.md
 * "Token exchange"): a real external OpenID provider (node-oidc-provider on loopback) is the
 * tenant's identity provider; its ID tokens are exchanged for our access tokens, which jose
 * verifies against our JWKS; the user and its identity are read back from the table. The attacks
 * on the subject token are in token-exchange-attacks.test.ts.
 */
let svc: TestService;
let external: ExternalProvider;
let idp: IdentityProviderView;
let call: ReturnType<typeof managementCaller>;
let publicId: string;
let confidentialId: string;
let confidentialSecret: string;
let noGrantId: string;
let jwks: ReturnType<typeof createRemoteJWKSet>;

beforeAll(async () => {
  external = await startExternalProvider();
  svc = await startTestService();
  call = managementCaller(svc.url, await svc.managementToken());
  idp = await registerProvider(svc, external, { provider_name: 'acme' });
  const make = async (body: Record<string, unknown>) => {
    const res = await call('POST', '/clients', { body });
    if (res.status !== 201) throw new Error(`client: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; client_secret: string };
  };
  publicId = (await make({ client_name: 'exchange spa', is_public: true, client_metadata: { grant_types: ['token_exchange'] } })).id;
  const confidential = await make({ client_name: 'exchange api', client_metadata: { grant_types: ['token_exchange', 'refresh_token'] } });
  confidentialId = confidential.id;
  confidentialSecret = confidential.client_secret;
  noGrantId = (await make({ client_name: 'no exchange', is_public: true, client_metadata: { grant_types: ['authorization_code'] } })).id;
  jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
});
afterAll(async () => {
  await svc?.stop();
  await external?.stop();
});

const exchange = (params: Record<string, string>, clientId = publicId) =>
  postToken(svc, { grant_type: EXCHANGE, client_id: clientId, ...params });

/** A new person at the provider: its ID token as the provider's token endpoint would issue it. */
const person = async (claims: Record<string, unknown> = {}) => {
  const sub = `sub-${crypto.randomUUID()}`;
  const email = uniqueEmail();
  const idToken = await external.mintIdToken({ sub, email, email_verified: true, name: 'Ada Lovelace', given_name: 'Ada', ...claims });
  return { sub, email, idToken };
};

const expectExchanged = (res: Answer) => {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.body).toEqual({
    access_token: expect.any(String),
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: 'Bearer',
    expires_in: 3600,
    scope: expect.any(String),
  });
};

describe('token exchange of a provider ID token (docs/contract.md §7.7)', () => {
  it('issues our access token for a new user, created and linked just in time with the token claims', async () => {
    const { sub, email, idToken } = await person();
    const res = await exchange({ subject_token: idToken, subject_token_type: 'acme', scope: 'openid email' });
    expectExchanged(res);
    // No ID token (not a login) and no refresh token (docs/federation.md "Token exchange").
    expect(res.body).not.toHaveProperty('id_token');
    expect(res.body).not.toHaveProperty('refresh_token');
    expect(res.body.scope).toBe('openid email');
    const { payload, protectedHeader } = await jwtVerify(res.body.access_token, jwks, {
      issuer: svc.url,
      audience: `${svc.url}/userinfo`,
      typ: 'at+jwt',
    });
    expect(protectedHeader.typ).toBe('at+jwt');
    const userId = await linkedUserId(svc, idp.id, sub);
    expect(userId).toEqual(expect.any(String));
    expect(payload).toMatchObject({ sub: userId, client_id: publicId, scope: 'openid email', tenant_id: idp.tenant_id });

    const user = await storedItem(svc, keys.user(userId!));
    expect(user).toMatchObject({ email, email_verified: true, name: 'Ada Lovelace', given_name: 'Ada', tenant_id: idp.tenant_id });
    expect(user).not.toHaveProperty('password_hash');
    expect(await storedIdentities(svc, userId!)).toEqual([
      expect.objectContaining({ user_id: userId, provider_id: idp.id, provider_user_id: sub, tenant_id: idp.tenant_id }),
    ]);

    // The token is good at /userinfo: it is this user's.
    const info = await fetch(`${svc.url}/userinfo`, { headers: { authorization: `Bearer ${res.body.access_token}` } });
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ sub: userId, email });
  });

  it('a second exchange for the same provider user finds the same user: no second user, no second identity', async () => {
    const { sub, email, idToken } = await person();
    const first = await exchange({ subject_token: idToken, subject_token_type: 'acme' });
    expectExchanged(first);
    const again = await person({ sub, email });
    const second = await exchange({ subject_token: again.idToken, subject_token_type: 'acme' });
    expectExchanged(second);
    const [a, b] = await Promise.all([first, second].map((r) => jwtVerify(r.body.access_token, jwks, { issuer: svc.url })));
    expect(b!.payload.sub).toBe(a!.payload.sub);
    expect(await usersWithEmail(svc, email)).toHaveLength(1);
    expect(await storedIdentities(svc, String(a!.payload.sub))).toHaveLength(1);
  });

  it('accepts both grant_type spellings, and the id_token / jwt URNs with the provider found by iss and aud', async () => {
    for (const [grant_type, subject_token_type] of [
      ['token_exchange', 'acme'],
      [EXCHANGE, ID_TOKEN_TYPE],
      ['token_exchange', JWT_TYPE],
    ] as const) {
      const { sub, idToken } = await person();
      const res = await postToken(svc, { grant_type, client_id: publicId, subject_token: idToken, subject_token_type });
      expectExchanged(res);
      const { payload } = await jwtVerify(res.body.access_token, jwks, { issuer: svc.url });
      expect(payload.sub, `${grant_type} ${subject_token_type}`).toBe(await linkedUserId(svc, idp.id, sub));
    }
  });

  it('a confidential client authenticates (docs/contract.md §7.8); a wrong secret is 401 and stores nothing', async () => {
    const { sub, idToken } = await person();
    const wrong = await postToken(
      svc,
      { grant_type: EXCHANGE, subject_token: idToken, subject_token_type: 'acme' },
      { authorization: basicAuth(confidentialId, `${confidentialSecret}x`) },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    expect(await linkedUserId(svc, idp.id, sub)).toBeUndefined();
    const res = await postToken(
      svc,
      { grant_type: EXCHANGE, subject_token: idToken, subject_token_type: 'acme', scope: 'openid offline_access' },
      { authorization: basicAuth(confidentialId, confidentialSecret) },
    );
    expectExchanged(res);
    // Even with offline_access and the refresh_token grant: an exchange is not a login.
    expect(res.body).not.toHaveProperty('refresh_token');
    expect(res.body).not.toHaveProperty('id_token');
    expect((await jwtVerify(res.body.access_token, jwks, { issuer: svc.url })).payload.client_id).toBe(confidentialId);
  });

  it('a client without token_exchange in its grant_types gets unauthorized_client, and nothing is stored', async () => {
    const { sub, email, idToken } = await person();
    for (const grant_type of ['token_exchange', EXCHANGE]) {
      const res = await postToken(svc, { grant_type, client_id: noGrantId, subject_token: idToken, subject_token_type: 'acme' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'unauthorized_client',
        error_description: 'body.grant_type: the client may not use token_exchange.',
      });
    }
    expect(await linkedUserId(svc, idp.id, sub)).toBeUndefined();
    expect(await usersWithEmail(svc, email)).toEqual([]);
  });

  it('an email another user of the tenant has is 400 invalid_request: nothing is linked silently', async () => {
    const email = uniqueEmail();
    const existing = await putUser(svc.stack.runtime, { email });
    const { sub, idToken } = await person({ email });
    const res = await exchange({ subject_token: idToken, subject_token_type: 'acme' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(await linkedUserId(svc, idp.id, sub)).toBeUndefined();
    expect((await usersWithEmail(svc, email)).map((u) => u.id)).toEqual([existing.id]);
    expect(await storedIdentities(svc, existing.id)).toEqual([]);
  });

  it('a blocked user gets nothing (invalid_grant, as the password grant answers)', async () => {
    const { sub, email, idToken } = await person();
    expectExchanged(await exchange({ subject_token: idToken, subject_token_type: 'acme' }));
    const userId = (await linkedUserId(svc, idp.id, sub))!;
    expect((await call('POST', `/users/${userId}/block`)).status).toBe(200);
    const again = await person({ sub, email });
    const res = await exchange({ subject_token: again.idToken, subject_token_type: 'acme' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_grant', error_description: 'The user is blocked.' });
    expect(res.body).not.toHaveProperty('access_token');
    expect((await storedItem(svc, keys.user(userId)))?.blocked).toBe(true);
  });

  it('with an audience: a token for that Resource, its scopes what the Resource has; an unknown audience is invalid_target', async () => {
    const identifier = `https://exchange-${crypto.randomUUID()}.example.com/`;
    const resource = await call('POST', '/resources', {
      body: { resource_type: 'api', resource_name: 'exchange api', resource_metadata: { identifier_url: identifier } },
    });
    expect(resource.status).toBe(201);
    expect((await call('POST', `/resources/${resource.body.id}/scopes`, { body: { scope_name: 'read:things' } })).status).toBe(201);
    const { idToken } = await person();
    const res = await exchange({
      subject_token: idToken,
      subject_token_type: 'acme',
      audience: identifier,
      scope: 'read:things write:things',
    });
    expectExchanged(res);
    expect(res.body.scope).toBe('read:things');
    const { payload } = await jwtVerify(res.body.access_token, jwks, { issuer: svc.url, audience: identifier, typ: 'at+jwt' });
    expect(payload.scope).toBe('read:things');

    const unknown = await exchange({ subject_token: idToken, subject_token_type: 'acme', audience: 'https://nowhere.example.com/' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('invalid_target');
  });
});

describe('token exchange and the management API (docs/security.md "The management API")', () => {
  it('an exchange for the management API through a client not linked to it is invalid_target; no user is provisioned', async () => {
    const { sub, idToken } = await person();
    const res = await exchange({
      subject_token: idToken,
      subject_token_type: 'acme',
      audience: `${svc.url}/identity/v1/`,
      scope: 'read:users',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'invalid_target',
      error_description: 'audience: the management API issues user tokens only through clients authorized on it.',
    });
    expect(res.body.access_token).toBeUndefined();
    expect(await linkedUserId(svc, idp.id, sub)).toBeUndefined();

    // An audience that is no Resource: the same, before anyone is provisioned.
    const other = await person();
    const unknown = await exchange({ subject_token: other.idToken, subject_token_type: 'acme', audience: 'https://nowhere.example.com/' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('invalid_target');
    expect(await linkedUserId(svc, idp.id, other.sub)).toBeUndefined();
  });
});

describe('token exchange of our own access token (RFC 8693 §2.1, subject_token_type access_token)', () => {
  let identifierA: string;
  let identifierB: string;
  let userId: string;
  let subjectToken: string;

  beforeAll(async () => {
    const resource = async (scopes: string[]) => {
      const identifier = `https://own-${crypto.randomUUID()}.example.com/`;
      const created = await call('POST', '/resources', {
        body: { resource_type: 'api', resource_name: `own ${identifier}`, resource_metadata: { identifier_url: identifier } },
      });
      for (const scope_name of scopes) await call('POST', `/resources/${created.body.id}/scopes`, { body: { scope_name } });
      return identifier;
    };
    identifierA = await resource(['read:a', 'write:a', 'shared']);
    identifierB = await resource(['shared', 'read:a', 'other']);
    const { sub, idToken } = await person();
    const first = await exchange({ subject_token: idToken, subject_token_type: 'acme', audience: identifierA, scope: 'read:a shared' });
    expectExchanged(first);
    subjectToken = first.body.access_token;
    userId = (await linkedUserId(svc, idp.id, sub))!;
  });

  it('exchanges it for another audience with the same or narrower scopes; the user is the same', async () => {
    for (const scope of [undefined, 'shared']) {
      const res = await exchange({
        subject_token: subjectToken,
        subject_token_type: ACCESS_TOKEN_TYPE,
        audience: identifierB,
        ...(scope ? { scope } : {}),
      });
      expectExchanged(res);
      const { payload } = await jwtVerify(res.body.access_token, jwks, { issuer: svc.url, audience: identifierB, typ: 'at+jwt' });
      expect(payload).toMatchObject({ sub: userId, client_id: publicId });
      // Not requested: the subject token's scopes that exist on the new audience.
      expect(payload.scope).toBe(scope ?? 'read:a shared');
    }
  });

  it('a scope the subject token does not hold is invalid_scope (never widened)', async () => {
    for (const scope of ['shared other', 'write:a']) {
      const res = await exchange({ subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE, audience: identifierB, scope });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'invalid_scope',
        error_description: 'body.scope: asks for more than the subject token was granted.',
      });
    }
  });

  it("refuses a revoked token, another tenant's token and a client's own token with invalid_request", async () => {
    const inactive = {
      error: 'invalid_request',
      error_description: 'body.subject_token: is not an active access token of this tenant.',
    };
    // Another tenant's user, its token signed by our keys.
    const tenantId = await createTenant(svc.stack.runtime);
    const foreignUser = await putUser(svc.stack.runtime, { tenant_id: tenantId, email: uniqueEmail() });
    const foreign = await userToken(svc.stack.runtime, foreignUser, { clientId: publicId, scope: 'shared', aud: identifierA });
    const res1 = await exchange({ subject_token: foreign, subject_token_type: ACCESS_TOKEN_TYPE, audience: identifierB });
    expect(res1.status).toBe(400);
    expect(res1.body).toMatchObject(inactive);

    // A client_credentials token (sub = client_id) has no user to act for.
    const clientToken = await svc.managementToken();
    const res2 = await exchange({ subject_token: clientToken, subject_token_type: ACCESS_TOKEN_TYPE });
    expect(res2.status).toBe(400);
    expect(res2.body).toMatchObject({
      error: 'invalid_request',
      error_description: 'body.subject_token: was issued to a client, not to a user.',
    });

    // Revoked by its client (RFC 7009): refused from then on.
    const { idToken } = await person();
    const fresh = await exchange({ subject_token: idToken, subject_token_type: 'acme', audience: identifierA, scope: 'shared' });
    expectExchanged(fresh);
    const ok = await exchange({ subject_token: fresh.body.access_token, subject_token_type: ACCESS_TOKEN_TYPE, audience: identifierB });
    expectExchanged(ok);
    const revoked = await fetch(`${svc.url}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: publicId, token: fresh.body.access_token }),
    });
    expect(revoked.status).toBe(200);
    const res3 = await exchange({ subject_token: fresh.body.access_token, subject_token_type: ACCESS_TOKEN_TYPE, audience: identifierB });
    expect(res3.status).toBe(400);
    expect(res3.body).toMatchObject(inactive);

    // Garbage is the same answer.
    const res4 = await exchange({ subject_token: 'not.a.token', subject_token_type: ACCESS_TOKEN_TYPE });
    expect(res4.body).toMatchObject(inactive);
  });

  it('only the client the token was issued to may exchange it: another client of the tenant is refused', async () => {
    const res = await postToken(svc, {
      grant_type: EXCHANGE,
      client_id: confidentialId,
      client_secret: confidentialSecret,
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      audience: identifierB,
    });
    expect(res.status).toBe(400);
    const description = 'body.subject_token: was issued to another client; only that client may exchange it.';
    expect(res.body).toEqual({ error: 'invalid_request', error_description: description, code: 'invalid_request', message: description });
    // Its own client still may.
    expectExchanged(await exchange({ subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE, audience: identifierB }));
  });

  it("refuses a token signed with a Resource's HS256 secret: its resource server holds that secret", async () => {
    const identifier = `https://hs-${crypto.randomUUID()}.example.com/`;
    const created = await call('POST', '/resources', {
      body: {
        resource_type: 'api',
        resource_name: 'hs256 api',
        resource_metadata: {
          identifier_url: identifier,
          signing_algorithm: 'HS256',
          signing_secret: 'hs256-exchange-secret-0123456789abcdefghijkl',
        },
      },
    });
    expect(created.status).toBe(201);
    const { idToken } = await person();
    const hs = await exchange({ subject_token: idToken, subject_token_type: 'acme', audience: identifier });
    expectExchanged(hs);
    expect(JSON.parse(Buffer.from(hs.body.access_token.split('.')[0], 'base64url').toString()).alg).toBe('HS256');
    const res = await exchange({ subject_token: hs.body.access_token, subject_token_type: ACCESS_TOKEN_TYPE, audience: identifierB });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'invalid_request',
      error_description: 'body.subject_token: is not an active access token of this tenant.',
    });
  });

  it("a blocked user's token is inactive: refused", async () => {
    const { sub, idToken } = await person();
    const got = await exchange({ subject_token: idToken, subject_token_type: 'acme', audience: identifierA, scope: 'shared' });
    expectExchanged(got);
    const id = (await linkedUserId(svc, idp.id, sub))!;
    expect((await call('POST', `/users/${id}/block`)).status).toBe(200);
    const res = await exchange({ subject_token: got.body.access_token, subject_token_type: ACCESS_TOKEN_TYPE, audience: identifierB });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });
});

describe('discovery and the provider key cache', () => {
  it('discovery names token exchange by its RFC 8693 §5.2 URN only (RFC 8414 §2: registered names)', async () => {
    const doc = (await (await fetch(`${svc.url}/.well-known/openid-configuration`)).json()) as Record<string, any>;
    expect(doc.grant_types_supported).toEqual(expect.arrayContaining([EXCHANGE, 'client_credentials']));
    expect(doc.grant_types_supported).not.toContain('token_exchange');
  });

  it("reads the provider's discovery document and JWKS once per container, however many exchanges", async () => {
    for (let i = 0; i < 10; i++) expectExchanged(await exchange({ subject_token: (await person()).idToken, subject_token_type: 'acme' }));
    const reads = (path: string) => external.requests.filter((p) => p === path).length;
    expect(reads('/.well-known/openid-configuration')).toBe(1);
    expect(reads('/jwks')).toBe(1);
  });
});
