import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthClient } from '#shared/oauth/oauth-deps.ts';
import { issueUserTokens, type UserTokenInput } from '#shared/oauth/user-tokens/issue-user-tokens.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { refreshTokenHash } from '#shared/store/sessions/refresh-tokens-repository.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { forgetUser } from '#shared/wiring/token-path/user-token-records.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';
import { putUser, updateUser } from '../support/store/user-items.ts';

/**
 * The user-token core (shared/oauth/user-tokens/), the refresh_token grant with rotation and
 * family revocation, and `/revoke` of refresh tokens (docs/contract.md §5.1, §7.1), end to end over HTTP on
 * DynamoDB Local. The first tokens of a login come from the core directly (the grants' own tests
 * drive them over HTTP); every refresh, introspection and revocation is HTTP.
 */
let svc: TestService;
let call: ReturnType<typeof managementCaller>;
let jwks: ReturnType<typeof createRemoteJWKSet>;
let rp: { id: string; secret: string; config: client.Configuration };

beforeAll(async () => {
  svc = await startTestService();
  call = managementCaller(svc.url, await svc.managementToken());
  jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
  rp = await relyingParty(['refresh_token', 'client_credentials']);
});
afterAll(async () => svc?.stop());

const deps = () => oauthDeps(svc.stack.runtime);
const runtime = () => svc.stack.runtime;

/** A confidential client with these grants, and its openid-client configuration (discovery, Basic). */
async function relyingParty(grant_types: string[], metadata: Record<string, unknown> = {}) {
  const res = await call('POST', '/clients', {
    body: { client_name: `rp ${grant_types.join(' ')}`, client_metadata: { grant_types, ...metadata } },
  });
  expect(res.status).toBe(201);
  const config = await client.discovery(new URL(svc.url), res.body.id, undefined, client.ClientSecretBasic(res.body.client_secret), {
    execute: [client.allowInsecureRequests],
  });
  return { id: res.body.id as string, secret: res.body.client_secret as string, config };
}

const oauthClient = async (id: string): Promise<OAuthClient> => (await deps().findClient(id))!;

/** A login's tokens from the core, as the password/otp/code grants will get them. */
async function login(user: UserRecord, request: UserTokenInput['request'], extra: Partial<UserTokenInput> = {}, clientId = rp.id) {
  return issueUserTokens(
    {
      client: await oauthClient(clientId),
      user,
      request,
      authTime: Math.floor(Date.now() / 1000) - 5,
      authorizedAt: new Date().toISOString(),
      ...extra,
    },
    deps(),
  );
}

const form = (params: Record<string, string>) => new URLSearchParams(params);
async function post(path: string, params: Record<string, string>, auth = basicAuth(rp.id, rp.secret)) {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
    body: form(params),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
const refresh = (refresh_token: string, extra: Record<string, string> = {}, auth?: string) =>
  post('/token', { grant_type: 'refresh_token', refresh_token, ...extra }, auth);
const introspect = async (token: string) => (await post('/introspect', { token })).body;

const storedItem = async (key: { PK: string; SK: string }) =>
  (await runtime().db.send(new GetCommand({ TableName: runtime().config.tableName, Key: key, ConsistentRead: true }))).Item;

const atHashOf = (token: string) => createHash('sha256').update(token, 'ascii').digest().subarray(0, 16).toString('base64url');
const invalidGrant = { error: 'invalid_grant', error_description: 'body.refresh_token: is invalid, expired or revoked.' };

describe('user tokens from the core (docs/contract.md §7.1)', () => {
  it('an RFC 9068 access token for /userinfo, an ID token and a refresh token, verified against our JWKS', async () => {
    const user = await putUser(runtime(), { name: 'Ada Lovelace', email: 'ada@example.com', phone_number: '+15550001111' });
    const tokens = await login(user, { scope: 'openid profile email offline_access' }, { nonce: 'n-0S6_WzA2Mj', sid: 'login-1' });
    expect(tokens).toEqual({
      access_token: expect.any(String),
      id_token: expect.any(String),
      refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{64}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'openid profile email offline_access',
    });
    const at = await jwtVerify(tokens.access_token, jwks, { issuer: svc.url, audience: `${svc.url}/userinfo`, typ: 'at+jwt' });
    expect(at.payload).toMatchObject({
      sub: user.id,
      client_id: rp.id,
      sid: 'login-1',
      tenant_id: user.tenant_id,
      scope: 'openid profile email offline_access',
    });
    expect(at.payload.permissions).toBeUndefined();

    // OIDC Core §2, §3.1.3.6, §3.1.3.7
    // RS256: the client registered no id_token_signed_response_alg (OIDC Registration §2); the
    // access token keeps its Resource's ES256, so the two carry different keys.
    const id = await jwtVerify(tokens.id_token!, jwks, { issuer: svc.url, audience: rp.id, algorithms: ['RS256'] });
    expect(id.protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid: expect.any(String) });
    expect(at.protectedHeader.alg).toBe('ES256');
    expect(id.payload).toEqual({
      iss: svc.url,
      sub: user.id,
      aud: rp.id,
      iat: expect.any(Number),
      exp: id.payload.iat! + 36_000, // the client's id_token.expiration_lifetime (default)
      auth_time: expect.any(Number),
      nonce: 'n-0S6_WzA2Mj',
      at_hash: atHashOf(tokens.access_token),
      sid: 'login-1',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      email_verified: true,
      // OIDC Core §5.1: a NumericDate in the ID token (/userinfo keeps the ISO time: docs/tokens.md "ID tokens").
      updated_at: Math.floor(Date.parse(user.updated_at) / 1000),
    });
    expect(id.payload).not.toHaveProperty('phone_number'); // no `phone` scope

    // Stored as a hash only, with its family (docs/tokens.md "Refresh tokens: rotation and family revocation")
    const item = await storedItem(keys.refreshToken(refreshTokenHash(tokens.refresh_token!)));
    expect(item).toMatchObject({
      user_id: user.id,
      client_id: rp.id,
      family_id: 'login-1',
      scope: 'openid profile email offline_access',
      audience: null,
      expires_at: null,
      GSI1PK: keys.userRefreshTokens(user.id),
      GSI1SK: refreshTokenHash(tokens.refresh_token!),
    });
    expect(JSON.stringify(item)).not.toContain(tokens.refresh_token);
    expect(item).not.toHaveProperty('ttl');
    expect(await storedItem(keys.refreshFamily('login-1'))).toMatchObject({
      revoked: false,
      user_id: user.id,
      GSI1PK: keys.userRefreshTokens(user.id),
    });
  });

  it('scopes: existing Resource scopes kept, unknown ones dropped; RBAC Resources and the management API give a user without permissions none', async () => {
    const user = await putUser(runtime());
    const open = await call('POST', '/resources', {
      body: {
        resource_type: 'api',
        resource_name: 'open api',
        resource_metadata: { identifier_url: `https://open-${user.id}.example.com/` },
      },
    });
    expect(open.status).toBe(201);
    expect((await call('POST', `/resources/${open.body.id}/scopes`, { body: { scope_name: 'read:things' } })).status).toBe(201);
    const tokens = await login(user, { scope: 'read:things write:things openid', audience: open.body.resource_metadata.identifier_url });
    expect(tokens.scope).toBe('read:things openid');
    expect(tokens.refresh_token).toBeUndefined(); // no offline_access
    const { payload } = await jwtVerify(tokens.access_token, jwks, { audience: open.body.resource_metadata.identifier_url });
    expect(payload).toMatchObject({ sub: user.id, scope: 'read:things openid' });
    expect(payload.permissions).toBeUndefined();

    const rbac = await call('POST', '/resources', {
      body: {
        resource_type: 'api',
        resource_name: 'rbac api',
        resource_metadata: { identifier_url: `https://rbac-${user.id}.example.com/`, rbac_enabled: true },
      },
    });
    expect(rbac.status).toBe(201);
    expect((await call('POST', `/resources/${rbac.body.id}/scopes`, { body: { scope_name: 'read:things' } })).status).toBe(201);
    const r = await login(user, { scope: 'read:things profile', resource: rbac.body.resource_metadata.identifier_url });
    expect(r.scope).toBe('profile');
    expect((await jwtVerify(r.access_token, jwks)).payload.permissions).toEqual([]);

    // The management API: only through a client authorized on it (management-api-link.ts).
    await expect(login(user, { scope: 'openid', audience: svc.managementAudience })).rejects.toMatchObject({ code: 'invalid_target' });
    const linked = await relyingParty(['refresh_token']);
    const mgmt = await deps().findResource(DEFAULT_TENANT_ID, svc.managementAudience);
    expect((await call('POST', `/clients/${linked.id}/resources`, { body: { resources: [mgmt!.id] } })).status).toBe(204);
    const m = await login(user, { scope: 'read:users update:users openid', audience: svc.managementAudience }, {}, linked.id);
    expect(m.scope).toBe('openid');
    expect((await jwtVerify(r.access_token, jwks)).payload.aud).toBe(rbac.body.resource_metadata.identifier_url);
    const management = (await jwtVerify(m.access_token, jwks)).payload;
    expect(management).toMatchObject({ aud: svc.managementAudience, sub: user.id, scope: 'openid' });
    expect(management.permissions).toBeUndefined(); // the management API has rbac_enabled off (docs/contract.md §7.6)

    await expect(login(user, { scope: 'openid', audience: 'https://nowhere.example.com/' })).rejects.toMatchObject({
      code: 'invalid_target',
    });
  });

  it('no refresh token for a client that does not list the refresh_token grant, even with offline_access', async () => {
    const other = await relyingParty(['client_credentials']);
    const tokens = await login(await putUser(runtime()), { scope: 'openid offline_access' }, {}, other.id);
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.id_token).toEqual(expect.any(String));
  });

  it('findLogin: email (any case), username (any case) or phone number, in the tenant only', async () => {
    const user = await putUser(runtime(), {
      email: `Grace-${Date.now()}@Example.com`,
      username: `grace${Date.now()}`,
      phone_number: '+15550002222',
    });
    for (const login of [user.email!, user.email!.toUpperCase(), user.username!, user.username!.toUpperCase(), user.phone_number!]) {
      expect((await deps().findLogin(user.tenant_id, login))?.userId, login).toBe(user.id);
    }
    expect(await deps().findLogin(user.tenant_id, 'nobody@example.com')).toBeUndefined();
    expect(await deps().findLogin('00000000-0000-7000-8000-0000000000ff', user.email!)).toBeUndefined();
    // A login is read as what its form says it is: the username spelled like the email is nobody.
    expect(await deps().findLogin(user.tenant_id, user.username!.replace(/^/, '+'))).toBeUndefined();
  });
});

describe('introspection with a bearer token (spec 4.2 Token info)', () => {
  it("a user's token may ask about itself only; a confidential client's own token about any of its tenant", async () => {
    const mine = await login(await putUser(runtime()), { scope: 'openid' });
    const theirs = await login(await putUser(runtime()), { scope: 'openid email' });
    const asBearer = (bearer: string, token: string) => post('/introspect', { token }, `Bearer ${bearer}`);
    // Itself: the full answer.
    const self = await asBearer(mine.access_token, mine.access_token);
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ active: true, client_id: rp.id });
    // Another user's token of the same client and tenant: nothing, not even part of the answer.
    expect(await asBearer(mine.access_token, theirs.access_token)).toMatchObject({ status: 200, body: { active: false } });
    expect((await post('/tokeninfo', { token: theirs.access_token }, `Bearer ${mine.access_token}`)).body).toEqual({ active: false });
    // A confidential client's own client_credentials token speaks for it, as its secret does.
    const clientToken = await svc.managementToken();
    expect((await asBearer(clientToken, theirs.access_token)).body).toMatchObject({ active: true, client_id: rp.id });
    expect(await introspect(theirs.access_token)).toMatchObject({ active: true, client_id: rp.id });
  });
});

describe('introspection of a refresh token (spec 4.2 token_type_hint=refresh_token)', () => {
  it('its own client sees it active until it is rotated or revoked; any other caller sees nothing', async () => {
    const user = await putUser(runtime(), { username: `rt_${Math.random().toString(36).slice(2, 9)}` });
    const first = await login(user, { scope: 'openid offline_access' });
    const refreshToken = first.refresh_token!;
    const answer = await post('/introspect', { token: refreshToken, token_type_hint: 'refresh_token' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      active: true,
      token_type: 'refresh_token',
      client_id: rp.id,
      scope: 'openid offline_access',
      username: user.username,
      sub: user.id,
      aud: `${svc.url}/userinfo`,
      iss: svc.url,
      iat: expect.any(Number),
      tenant_id: user.tenant_id,
    });
    const info = await post('/tokeninfo', { token: refreshToken });
    expect(info.body).toMatchObject({ active: true, token_type: 'refresh_token', subject: user.id, username: user.username });
    // Another client of the tenant (the service's own, a global admin) learns nothing.
    expect((await post('/introspect', { token: refreshToken }, basicAuth(svc.clientId, svc.clientSecret))).body).toEqual({ active: false });
    // Rotated: the old one is inactive, its successor active.
    const next = await refresh(refreshToken);
    expect(next.status).toBe(200);
    expect(await introspect(refreshToken)).toEqual({ active: false });
    expect(await introspect(next.body.refresh_token)).toMatchObject({ active: true, token_type: 'refresh_token' });
    // Revoked (RFC 7009): inactive.
    expect((await post('/revoke', { token: next.body.refresh_token })).status).toBe(200);
    expect(await introspect(next.body.refresh_token)).toEqual({ active: false });
    // An unknown value of the same shape: inactive. An ID token is not introspectable (docs/tokens.md).
    expect(await introspect('A'.repeat(64))).toEqual({ active: false });
    expect(await introspect(first.id_token!)).toEqual({ active: false });
  });
});

describe('refresh_token grant (RFC 6749 §6, docs/contract.md §5.1)', () => {
  it('rotates through openid-client: a new refresh token, a validated ID token with the login auth_time and no nonce', async () => {
    const user = await putUser(runtime(), { name: 'Rota' });
    const first = await login(user, { scope: 'openid profile offline_access' }, { nonce: 'abc' });
    const firstId = await jwtVerify(first.id_token!, jwks);
    client.enableNonRepudiationChecks(rp.config); // openid-client verifies the ID token's signature against our JWKS (kid)
    const next = await client.refreshTokenGrant(rp.config, first.refresh_token!);
    expect(next.refresh_token).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(next.refresh_token).not.toBe(first.refresh_token);
    const claims = next.claims()!; // openid-client checked iss, aud, exp, iat, sub
    expect(claims).toMatchObject({
      iss: svc.url,
      aud: rp.id,
      sub: user.id,
      auth_time: firstId.payload.auth_time,
      sid: firstId.payload.sid,
      name: 'Rota',
    });
    expect(claims.at_hash).toBe(atHashOf(next.access_token));
    expect(claims).not.toHaveProperty('nonce'); // OIDC Core §12.2 (errata): a refresh is no authentication request
    expect(decodeProtectedHeader(next.id_token!).kid).toEqual(expect.any(String));
    const at = await jwtVerify(next.access_token, jwks, { typ: 'at+jwt' });
    expect(at.payload).toMatchObject({ sub: user.id, sid: firstId.payload.sid, scope: 'openid profile offline_access' });

    // The chain goes on; the old token is marked rotated, the new one stored with the same family
    const third = await client.refreshTokenGrant(rp.config, next.refresh_token!);
    expect(third.access_token).toEqual(expect.any(String));
    expect(await storedItem(keys.refreshToken(refreshTokenHash(first.refresh_token!)))).toMatchObject({
      rotated_at: expect.any(String),
      ttl: expect.any(Number),
    });
    expect(await storedItem(keys.refreshToken(refreshTokenHash(third.refresh_token!)))).toMatchObject({ family_id: firstId.payload.sid });
  });

  it('20 parallel refreshes of one token: exactly one success, every other one invalid_grant', async () => {
    const user = await putUser(runtime());
    const { refresh_token } = await login(user, { scope: 'openid offline_access' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(refresh_token!)));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.body.refresh_token).toEqual(expect.any(String));
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject(invalidGrant);
      expect(a.headers.get('cache-control')).toBe('no-store');
    }
    // The losers presented a token that was (being) rotated: that is reuse (RFC 9700 §4.14.2: the
    // server cannot tell which caller is legitimate), so the family is revoked, the winner's
    // new refresh token included (docs/tokens.md "Refresh tokens").
    const { payload } = await jwtVerify(ok[0]!.body.access_token, jwks);
    expect(await storedItem(keys.refreshFamily(payload.sid as string))).toMatchObject({ revoked: true });
    expect(await refresh(ok[0]!.body.refresh_token)).toMatchObject({ status: 400, body: invalidGrant });
    const rotated = await storedItem(keys.refreshToken(refreshTokenHash(refresh_token!)));
    expect(rotated).toMatchObject({ rotated_at: expect.any(String) });
  });

  it('reuse of a rotated token revokes the family: the newer refresh token fails, the family access tokens turn inactive', async () => {
    const user = await putUser(runtime());
    const first = await login(user, { scope: 'openid offline_access' });
    const second = await refresh(first.refresh_token!);
    expect(second.status).toBe(200);
    const { payload } = await jwtVerify(second.body.access_token, jwks);
    // Read the family into this container's cache as not revoked: the revocation below must still
    // show at once here (the container that revokes remembers it), not after the cache's TTL.
    expect((await introspect(second.body.access_token)).active).toBe(true);

    expect(await refresh(first.refresh_token!)).toMatchObject({ status: 400, body: invalidGrant }); // reuse
    expect(await storedItem(keys.refreshFamily(payload.sid as string))).toMatchObject({ revoked: true, revoked_at: expect.any(String) });
    expect(await refresh(second.body.refresh_token)).toMatchObject({ status: 400, body: invalidGrant });
    // Every access token of the family (same `sid`) is inactive (docs/tokens.md "When a user token stops working")
    expect(await introspect(first.access_token)).toEqual({ active: false });
    expect(await introspect(second.body.access_token)).toEqual({ active: false });
    // ...and a login of the same user with another sid is untouched
    const other = await login(user, { scope: 'openid' });
    expect((await introspect(other.access_token)).active).toBe(true);
  });

  it('scope may only narrow (RFC 6749 §6): narrower works and the next refresh token keeps the full scope; wider is invalid_scope', async () => {
    const user = await putUser(runtime(), { email: `narrow-${Date.now()}@example.com` });
    const first = await login(user, { scope: 'openid email offline_access' });
    const narrow = await refresh(first.refresh_token!, { scope: 'openid' });
    expect(narrow.status).toBe(200);
    expect(narrow.body.scope).toBe('openid');
    expect((await jwtVerify(narrow.body.access_token, jwks)).payload.scope).toBe('openid');
    expect((await jwtVerify(narrow.body.id_token, jwks)).payload).not.toHaveProperty('email');
    expect(await storedItem(keys.refreshToken(refreshTokenHash(narrow.body.refresh_token)))).toMatchObject({
      scope: 'openid email offline_access',
    });

    const wide = await refresh(narrow.body.refresh_token, { scope: 'openid profile' });
    expect(wide).toMatchObject({
      status: 400,
      body: { error: 'invalid_scope', error_description: 'body.scope: asks for more than the refresh token was granted.' },
    });
    // A refused request does not consume the token
    const again = await refresh(narrow.body.refresh_token);
    expect(again.status).toBe(200);
    expect(again.body.scope).toBe('openid email offline_access');
    expect(await refresh(again.body.refresh_token, { audience: svc.managementAudience })).toMatchObject({
      status: 400,
      body: { error: 'invalid_target' },
    });
  });

  it('a blocked user, a deleted user, or a token older than tokens_revoked_at: invalid_grant', async () => {
    const blocked = await putUser(runtime());
    const b = await login(blocked, { scope: 'offline_access' });
    await updateUser(runtime(), blocked, { blocked: true });
    forgetUser(runtime(), blocked.id);
    expect(await refresh(b.refresh_token!)).toMatchObject({ status: 400, body: invalidGrant });

    const gone = await putUser(runtime());
    const g = await login(gone, { scope: 'offline_access' });
    const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    await runtime().db.send(new DeleteCommand({ TableName: runtime().config.tableName, Key: keys.user(gone.id) }));
    forgetUser(runtime(), gone.id);
    expect(await refresh(g.refresh_token!)).toMatchObject({ status: 400, body: invalidGrant });

    const changed = await putUser(runtime());
    const c = await login(changed, { scope: 'offline_access' });
    await updateUser(runtime(), changed, { tokens_revoked_at: new Date(Date.now() + 1000).toISOString() });
    forgetUser(runtime(), changed.id);
    expect(await refresh(c.refresh_token!)).toMatchObject({ status: 400, body: invalidGrant });
  });

  it('the rotation itself refuses a blocked user even when the container still holds the user unblocked (cache)', async () => {
    const user = await putUser(runtime());
    const t = await login(user, { scope: 'offline_access' });
    await deps().findUser(user.id); // cached as not blocked for RECORD_CACHE_TTL_SECONDS
    await updateUser(runtime(), user, { blocked: true }); // no forgetUser: another container blocked the user
    expect(await refresh(t.refresh_token!)).toMatchObject({ status: 400, body: invalidGrant });
  });

  it('another client, an unknown or an expired token: invalid_grant; a client without the grant: unauthorized_client', async () => {
    const user = await putUser(runtime());
    const t = await login(user, { scope: 'offline_access' });
    const other = await relyingParty(['refresh_token']);
    expect(await refresh(t.refresh_token!, {}, basicAuth(other.id, other.secret))).toMatchObject({ status: 400, body: invalidGrant });
    expect(await refresh('x'.repeat(64))).toMatchObject({ status: 400, body: invalidGrant });
    const noGrant = await relyingParty(['client_credentials']);
    expect((await refresh(t.refresh_token!, {}, basicAuth(noGrant.id, noGrant.secret))).body.error).toBe('unauthorized_client');
    expect((await post('/token', { grant_type: 'refresh_token' })).body).toMatchObject({
      error: 'invalid_request',
      error_description: 'body.refresh_token: is required',
    });
    // still usable by its own client: none of the above consumed it
    expect((await refresh(t.refresh_token!)).status).toBe(200);

    const short = await relyingParty(['refresh_token'], { refresh_token: { expiration_enabled: true, expiration_lifetime: 60 } });
    const s = await login(user, { scope: 'offline_access' }, {}, short.id);
    const item = await storedItem(keys.refreshToken(refreshTokenHash(s.refresh_token!)));
    expect(Date.parse(item!.expires_at as string) - Date.parse(item!.created_at as string)).toBe(60_000);
    expect(item!.ttl).toBe(Math.floor(Date.parse(item!.expires_at as string) / 1000));
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    await runtime().db.send(
      new UpdateCommand({
        TableName: runtime().config.tableName,
        Key: keys.refreshToken(refreshTokenHash(s.refresh_token!)),
        UpdateExpression: 'SET expires_at = :e, #ttl = :t',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':e': new Date(Date.now() - 1000).toISOString(), ':t': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    expect(await refresh(s.refresh_token!, {}, basicAuth(short.id, short.secret))).toMatchObject({ status: 400, body: invalidGrant });
  });
  it('a public client refreshes with its client_id alone (RFC 6749 §6), and only its own tokens', async () => {
    const created = await call('POST', '/clients', {
      body: { client_name: 'public rp', is_public: true, client_metadata: { grant_types: ['refresh_token'] } },
    });
    expect(created.status).toBe(201);
    const user = await putUser(runtime());
    const t = await login(user, { scope: 'openid offline_access' }, {}, created.body.id);
    const asPublic = (refresh_token: string) =>
      fetch(`${svc.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ grant_type: 'refresh_token', refresh_token, client_id: created.body.id }),
      });
    const res = await asPublic(t.refresh_token!);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, string>;
    expect(body.refresh_token).toEqual(expect.any(String));
    expect((await jwtVerify(body.id_token!, jwks, { audience: created.body.id })).payload.sub).toBe(user.id);
    const confidentialToken = (await login(user, { scope: 'offline_access' })).refresh_token!;
    expect(await (await asPublic(confidentialToken)).json()).toMatchObject(invalidGrant);
  });
});

describe('/revoke of refresh tokens (RFC 7009)', () => {
  it('revokes the family, by form or the spec JSON body, whatever the hint; the grant access tokens go with it', async () => {
    const user = await putUser(runtime());
    const a = await login(user, { scope: 'openid offline_access' });
    const res = await post('/revoke', { token: a.refresh_token!, token_type_hint: 'access_token' }); // a wrong hint changes nothing
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect(await refresh(a.refresh_token!)).toMatchObject({ status: 400, body: invalidGrant });
    const sid = (await jwtVerify(a.access_token, jwks)).payload.sid as string;
    expect(await storedItem(keys.refreshFamily(sid))).toMatchObject({ revoked: true });
    expect(await introspect(a.access_token)).toEqual({ active: false }); // RFC 7009 §2.1: the grant's access tokens too

    const b = await login(user, { scope: 'offline_access' });
    const json = await fetch(`${svc.url}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basicAuth(rp.id, rp.secret) },
      body: JSON.stringify({ client_id: rp.id, token: b.refresh_token }),
    });
    expect(json.status).toBe(200);
    expect(await refresh(b.refresh_token!)).toMatchObject({ status: 400, body: invalidGrant });
  });

  it('another client of the tenant is refused (unauthorized_client) and the token stays live; an unknown token is 200', async () => {
    const user = await putUser(runtime());
    const t = await login(user, { scope: 'offline_access' });
    const other = await relyingParty(['refresh_token']);
    const res = await post('/revoke', { token: t.refresh_token!, token_type_hint: 'refresh_token' }, basicAuth(other.id, other.secret));
    expect(res).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
    expect((await refresh(t.refresh_token!)).status).toBe(200);
    expect((await post('/revoke', { token: 'not-a-token-we-issued', token_type_hint: 'refresh_token' })).status).toBe(200);
  });
});
