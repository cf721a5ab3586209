import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueUserTokens } from '#shared/oauth/user-tokens/issue-user-tokens.ts';
import { deviceCodesRepository } from '#shared/store/sessions/device-codes-repository.ts';
import { refreshTokensRepository } from '#shared/store/sessions/refresh-tokens-repository.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { type FlowClient, flowClient, REDIRECT } from '../support/oauth/authorize-flow.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { putUser, updateUser } from '../support/store/user-items.ts';

/**
 * docs/contract.md §7.1: a password change or a block (the user's `tokens_revoked_at`) kills every token
 * issued before it, and every grant given before it too: an authorization code or a device approval
 * from before the change yields nothing after it, and above all no refresh token that would outlive
 * the change: the code grants compare the grant's time with the user's, and a refresh token's
 * `created_at` is the time of the grant it comes from, not the redemption's (after the revocation).
 */
let svc: TestService;
let clock = Date.now();
let rp: FlowClient;
const rt = () => svc.stack.runtime;

beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(clock) });
  rp = await flowClient(svc, { grant_types: ['authorization_code', 'refresh_token', 'device_code'] });
});
afterAll(async () => svc?.stop());

async function token(params: Record<string, string>) {
  const res = await fetch(`${svc.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: rp.auth! },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** A code for `user` issued now, as /authorize issues it after the login and consent. */
async function codeFor(userId: string, tenantId: string) {
  return oauthDeps(rt()).authorizationCodes.issue({
    client_id: rp.clientId,
    tenant_id: tenantId,
    user_id: userId,
    redirect_uri: REDIRECT,
    scope: ['openid', 'offline_access'],
    auth_time: Math.floor(clock / 1000),
    sid: randomUUID(),
    session_id: randomUUID(),
  });
}

const revoked = { status: 400, body: { error: 'invalid_grant', code: 'invalid_grant' } };

describe('grants given before the user tokens were revoked', () => {
  it('an authorization code from before a password change: invalid_grant, no token at all', async () => {
    const user = await putUser(rt());
    const code = await codeFor(user.id, user.tenant_id);
    clock += 2_000;
    await updateUser(rt(), user, { tokens_revoked_at: new Date(clock).toISOString() });
    clock += 2_000; // past the 1 s caches: the grant sees the change
    const res = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
    expect(res).toMatchObject(revoked);
    expect(res.body.access_token).toBeUndefined();
    // A code issued after the change works: the rule is about time, not about the user.
    const fresh = await token({ grant_type: 'authorization_code', code: await codeFor(user.id, user.tenant_id), redirect_uri: REDIRECT });
    expect(fresh.status).toBe(200);
    expect(fresh.body.refresh_token).toMatch(/^[\w-]{64}$/); // docs/tokens.md: 64 base64url characters
  });

  it('the same while the token path still holds the user from before the change: the refresh write refuses', async () => {
    const user = await putUser(rt());
    const code = await codeFor(user.id, user.tenant_id);
    const deps = oauthDeps(rt());
    expect((await deps.findUser(user.id))?.tokens_revoked_at).toBeUndefined(); // now cached for 1 s
    clock += 100;
    await updateUser(rt(), user, { tokens_revoked_at: new Date(clock).toISOString() });
    clock += 100;
    expect((await deps.findUser(user.id))?.tokens_revoked_at).toBeUndefined(); // still the stale copy
    const res = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
    expect(res).toMatchObject(revoked);
    expect(res.body.refresh_token).toBeUndefined();
  });

  it('a device approval from before a block or password change: invalid_grant at the poll', async () => {
    const user = await putUser(rt());
    const devices = deviceCodesRepository(rt().db, rt().config.tableName, rt().now);
    const { deviceCode, device } = await devices.create({
      clientId: rp.clientId,
      tenantId: user.tenant_id,
      scopes: ['openid', 'offline_access'],
      lifetimeSeconds: 600,
      intervalSeconds: 5,
    });
    const approved = await devices.decide(device.hash, {
      decision: 'allow',
      userId: user.id,
      authTime: Math.floor(clock / 1000),
      grantedScopes: ['openid', 'offline_access'],
    });
    expect(approved).toBe(true);
    clock += 2_000;
    // What a block (then an unblock) or a password change leaves: tokens_revoked_at after the approval.
    await updateUser(rt(), user, { tokens_revoked_at: new Date(clock).toISOString() });
    clock += 10_000;
    const res = await token({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode });
    expect(res).toMatchObject(revoked);
  });

  it('the refresh write itself: refused for a revocation after authorizedAt, a blocked or a missing user', async () => {
    const repo = refreshTokensRepository(rt().db, rt().config.tableName, rt().now);
    const grant = (userId: string) => ({
      user_id: userId,
      client_id: rp.clientId,
      tenant_id: 't',
      family_id: randomUUID(),
      scope: ['offline_access'],
      audience: null,
      auth_time: 1,
      lifetime: null,
    });
    const changed = await putUser(rt(), { tokens_revoked_at: '2030-01-01T00:00:01.000Z' });
    expect(await repo.issue(grant(changed.id), '2030-01-01T00:00:00.999Z')).toBe('user-refused');
    expect(await repo.issue(grant(changed.id), '2030-01-01T00:00:01.000Z')).toHaveProperty('token');
    const blocked = await putUser(rt(), { blocked: true });
    expect(await repo.issue(grant(blocked.id), new Date(clock).toISOString())).toBe('user-refused');
    expect(await repo.issue(grant(randomUUID()), new Date(clock).toISOString())).toBe('user-refused');
  });

  it('the core refuses at once from the user it holds, before minting', async () => {
    const user = await putUser(rt(), { tokens_revoked_at: new Date(clock).toISOString() });
    const deps = oauthDeps(rt());
    const client = (await deps.findClient(rp.clientId))!;
    const input = { client, user, request: { scope: 'openid offline_access' }, authTime: Math.floor(clock / 1000) };
    await expect(issueUserTokens({ ...input, authorizedAt: new Date(clock - 1).toISOString() }, deps)).rejects.toMatchObject({
      status: 400,
      code: 'invalid_grant',
    });
    clock += 2_000;
    const ok = await issueUserTokens({ ...input, authorizedAt: new Date(clock).toISOString() }, deps);
    expect(ok.refresh_token).toMatch(/^[\w-]{64}$/);
  });
});
