import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { interactionsRepository } from '#shared/store/sessions/interactions-repository.ts';
import { CookieJar, csrfIn, TEST_RETURN_TO } from '../support/browser/pages-fixture.ts';
import { usersFixture } from '../support/management/users-fixture.ts';
import { loginClient, tokenRequest } from '../support/oauth/login-grants.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * Per-user caps (docs/security.md "Caps"), over HTTP with small caps set through the service's
 * configuration (USER_MAX_REFRESH_FAMILIES=3, USER_MAX_SESSIONS=2): a login past the cap ends the
 * user's oldest refresh-token family (its refresh token refused, its access tokens inactive) or
 * hosted-page session (its cookie no longer signs in); the newest ones work; parallel logins past
 * the cap leave exactly the cap.
 */
const FAMILIES = 3;
const SESSIONS = 2;
const PASSWORD = 'capped-Logins-Lighthouse-58';
let fx: Awaited<ReturnType<typeof usersFixture>>;
let auth: string;
let passwordHash: string;

beforeAll(async () => {
  fx = await usersFixture({ USER_MAX_REFRESH_FAMILIES: String(FAMILIES), USER_MAX_SESSIONS: String(SESSIONS) });
  ({ auth } = await loginClient(fx.svc, ['password', 'refresh_token']));
  // The grant checks a hash with the parameters stored in it: a cheap one keeps parallel logins fast.
  passwordHash = await hashPassword(PASSWORD, { memoryKiB: 64, passes: 1, parallelism: 1 });
});
afterAll(async () => {
  await fx?.stop();
});

const runtime = () => fx.svc.stack.runtime;
const newUser = (fields: Partial<UserRecord> = {}) =>
  putUser(runtime(), {
    username: `capped_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
    password_hash: passwordHash,
    ...fields,
  });
const stored = async (key: { PK: string; SK: string }) =>
  (await runtime().db.send(new GetCommand({ TableName: runtime().config.tableName, Key: key, ConsistentRead: true }))).Item;

const passwordLogin = async (user: UserRecord) => {
  const res = await tokenRequest(fx.svc, auth, 'password', {
    username: user.username!,
    password: PASSWORD,
    scope: 'openid offline_access',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { access_token: string; refresh_token: string };
};
const refresh = (refresh_token: string) => tokenRequest(fx.svc, auth, 'refresh_token', { refresh_token });
const introspect = async (token: string) => {
  const res = await fetch(`${fx.svc.url}/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
    body: new URLSearchParams({ token }),
  });
  return (await res.json()) as Record<string, unknown>;
};
const REFUSED = { status: 400, body: { error: 'invalid_grant', error_description: 'body.refresh_token: is invalid, expired or revoked.' } };

describe(`refresh-token families per user (cap ${FAMILIES})`, () => {
  it('a login past the cap revokes the oldest family: its refresh token is invalid_grant, its access token inactive; the newest work', async () => {
    const user = await newUser();
    const logins = [];
    for (let i = 0; i <= FAMILIES; i++) logins.push(await passwordLogin(user));
    const jwks = createRemoteJWKSet(new URL(`${fx.svc.url}/.well-known/jwks.json`));
    const oldestSid = (await jwtVerify(logins[0]!.access_token, jwks)).payload.sid as string;
    expect(await stored(keys.refreshFamily(oldestSid))).toMatchObject({ revoked: true, revoked_at: expect.any(String) });
    expect(await refresh(logins[0]!.refresh_token)).toMatchObject(REFUSED);
    expect(await introspect(logins[0]!.access_token)).toEqual({ active: false });
    for (const login of logins.slice(1)) {
      expect((await introspect(login.access_token)).active).toBe(true);
      expect((await refresh(login.refresh_token)).status).toBe(200);
    }
    // The list on the user item: the three newest, oldest first; never shown by the API.
    const item = await stored(keys.user(user.id));
    expect(item?.refresh_families).toHaveLength(FAMILIES);
    const shown = await fx.call('GET', `/users/${user.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).not.toHaveProperty('refresh_families');
    expect(shown.body).not.toHaveProperty('live_sessions');
  });

  it('DynamoDB writes of a password login: the same below the cap; at the cap one more transaction (the first learns the list is full)', async () => {
    const user = await newUser();
    await passwordLogin(user); // rehashes the cheap hash: the logins counted below do not
    const calls: string[] = [];
    runtime().db.middlewareStack.add(
      (next, context) => (args) => {
        // Reads depend on what the caches hold (the record TTL is 1 s); the writes do not.
        if (!/^(Get|BatchGet|Query)/.test(context.commandName ?? '')) calls.push(context.commandName ?? '?');
        return next(args);
      },
      { step: 'initialize', name: 'countCalls' },
    );
    const counted = async () => {
      calls.length = 0;
      await passwordLogin(user);
      return [...calls].sort();
    };
    try {
      const below = await counted();
      // The counting write, the refresh token's transaction, the login's write (a transaction: it
      // carries the login's event, docs/events.md "Recording"; no call more).
      expect(below).toEqual(['TransactWriteItemsCommand', 'TransactWriteItemsCommand', 'UpdateItemCommand']);
      await counted(); // the third: at the cap now
      expect(await counted()).toEqual([...below, 'TransactWriteItemsCommand'].sort());
    } finally {
      runtime().db.middlewareStack.remove('countCalls');
    }
  });

  it('8 parallel logins past the cap leave exactly 3 live families', async () => {
    // No login before: the first rehashes the cheap hash to the production cost, and 8 of those
    // in parallel on a loaded machine pass the function's deadline.
    const user = await newUser();
    const logins = await Promise.all(Array.from({ length: 8 }, () => passwordLogin(user)));
    const answers = [];
    for (const login of logins) answers.push((await refresh(login.refresh_token)).status);
    expect(answers.filter((s) => s === 200)).toHaveLength(FAMILIES);
    expect(answers.filter((s) => s === 400)).toHaveLength(8 - FAMILIES);
    expect((await stored(keys.user(user.id)))?.refresh_families).toHaveLength(FAMILIES);
    const { Items } = await runtime().db.send(
      new QueryCommand({
        TableName: runtime().config.tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :family)',
        ExpressionAttributeValues: { ':pk': keys.userRefreshTokens(user.id), ':family': 'FAMILY#' },
      }),
    );
    expect(Items!.filter((f) => f.revoked === false)).toHaveLength(FAMILIES);
  });
});

describe(`hosted-page sessions per user (cap ${SESSIONS})`, () => {
  const interaction = () =>
    interactionsRepository(runtime().db, runtime().config.tableName, runtime().now).createInteraction({
      kind: 'authorize',
      tenant_id: DEFAULT_TENANT_ID,
      client_id: fx.svc.clientId,
      scopes: ['openid'],
      prompt: [],
      return_to: TEST_RETURN_TO,
      payload: { test: true },
    });
  /** Signs in through /login in a new browser; returns it with its session cookie. */
  const signIn = async (user: UserRecord) => {
    const { id } = await interaction();
    const jar = new CookieJar(fx.svc.url);
    const form = await jar.get(`/login?interaction=${id}`);
    const res = await jar.post(`/login?interaction=${id}`, { csrf_token: csrfIn(form.text), username: user.username!, password: PASSWORD });
    expect(res.status).toBe(303);
    expect(jar.cookies.has('session')).toBe(true);
    return jar;
  };
  /** Whether the browser's session still signs in: GET /login answers 303 to consent instead of the form. */
  const signedIn = async (jar: CookieJar) => {
    const { id } = await interaction();
    const res = await jar.get(`/login?interaction=${id}`);
    return res.status === 303;
  };

  it('a login past the cap ends the oldest session: its cookie no longer signs in; the newest do', async () => {
    const user = await newUser();
    const browsers = [];
    for (let i = 0; i <= SESSIONS; i++) browsers.push(await signIn(user));
    expect(await signedIn(browsers[0]!)).toBe(false);
    for (const jar of browsers.slice(1)) expect(await signedIn(jar)).toBe(true);
    expect((await stored(keys.user(user.id)))?.live_sessions).toHaveLength(SESSIONS);
  });

  it('6 parallel logins past the cap leave exactly 2 live sessions', async () => {
    const user = await newUser();
    const browsers = await Promise.all(Array.from({ length: 6 }, () => signIn(user)));
    const live = [];
    for (const jar of browsers) live.push(await signedIn(jar));
    expect(live.filter(Boolean)).toHaveLength(SESSIONS);
    expect((await stored(keys.user(user.id)))?.live_sessions).toHaveLength(SESSIONS);
  });
});
