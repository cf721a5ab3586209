import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, PASSWORD_HASH_PARAMS, parsePasswordHash, passwordHashPrefix } from '#shared/crypto/password-hash.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { userMarker } from '#shared/store/users/user-markers.ts';
import { INVALID_CREDENTIALS, loginClient, storedItem, tokenRequest } from '../support/oauth/login-grants.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * The login markers keep the prefix of the user's password hash (parameters and salt, never the
 * digest: store/user-markers.ts), so a login's hash starts before the user is read
 * (grants/user-login.ts). The prefix is a hint: these tests make it stale or absent and show the
 * login still answers from the user's own hash, then rewrites the markers; and that every write
 * of a hash (create, password change, identifier change, rehash) keeps the markers current.
 */
let svc: TestService;
let auth: string;
let call: ReturnType<typeof managementCaller>;
const PASSWORD = 'amber-lantern-42-orchard';
const NEW_PASSWORD = 'cobalt-meadow-17-violin';

beforeAll(async () => {
  svc = await startTestService();
  ({ auth } = await loginClient(svc, ['password']));
  call = managementCaller(svc.url, await svc.managementToken());
});
afterAll(async () => svc?.stop());

const n = () => Math.random().toString(36).slice(2, 10);
const login = (username: string, password: string) => tokenRequest(svc, auth, 'password', { username, password });
const markerKeys = (user: Pick<UserRecord, 'tenant_id' | 'email' | 'username' | 'phone_number'>) => [
  userMarker(user.tenant_id, 'email', user.email!),
  userMarker(user.tenant_id, 'username', user.username!),
  userMarker(user.tenant_id, 'phone_number', user.phone_number!),
];
const storedHash = async (id: string) => (await storedItem(svc, keys.user(id)))?.password_hash as string;
/** The `password_prefix` of each of the user's login markers. */
const markerPrefixes = async (user: Parameters<typeof markerKeys>[0]) =>
  Promise.all(markerKeys(user).map(async (key) => (await storedItem(svc, key))?.password_prefix));

async function createUser(): Promise<UserRecord> {
  const id = n();
  const res = await call('POST', '/users', {
    body: { email: `m.${id}@example.com`, username: `m_${id}`, phone_number: `+1555${Date.now() % 1e7}`, password: PASSWORD },
  });
  expect(res.status).toBe(201);
  return res.body as UserRecord;
}

/** Replaces the stored hash on the user item alone, as if its markers had missed the change. */
async function setHashBehindMarkers(userId: string, hash: string) {
  await svc.stack.runtime.db.send(
    new UpdateCommand({
      TableName: svc.stack.tableName,
      Key: keys.user(userId),
      UpdateExpression: 'SET password_hash = :h',
      ExpressionAttributeValues: { ':h': hash },
    }),
  );
}

describe('login markers carry the prefix of the password hash', () => {
  it('a created user: every login marker holds the prefix (parameters and salt), never the digest', async () => {
    const user = await createUser();
    const hash = await storedHash(user.id);
    const prefix = passwordHashPrefix(hash)!;
    expect(prefix).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}$/);
    expect(hash.startsWith(`${prefix}$`)).toBe(true);
    const digest = hash.slice(prefix.length + 1);
    expect(await markerPrefixes(user)).toEqual([prefix, prefix, prefix]);
    for (const key of markerKeys(user)) expect(JSON.stringify(await storedItem(svc, key))).not.toContain(digest);
    expect((await login(user.username!, PASSWORD)).status).toBe(200);
  });

  it('a password change rewrites every marker; the old password is refused, the new one works', async () => {
    const user = await createUser();
    const before = await markerPrefixes(user);
    expect((await call('PUT', `/users/${user.id}/password`, { body: { password: NEW_PASSWORD } })).status).toBe(204);
    const prefix = passwordHashPrefix(await storedHash(user.id));
    expect(prefix).not.toBe(before[0]);
    expect(await markerPrefixes(user)).toEqual([prefix, prefix, prefix]);
    expect((await login(user.email!, PASSWORD)).body).toMatchObject(INVALID_CREDENTIALS);
    expect((await login(user.email!, NEW_PASSWORD)).status).toBe(200);
  });

  it('a new email or username gets a marker with the prefix; the old one is gone', async () => {
    const user = await createUser();
    const id = n();
    const res = await call('PATCH', `/users/${user.id}`, { body: { email: `moved.${id}@example.com`, username: `moved_${id}` } });
    expect(res.status).toBe(200);
    const prefix = passwordHashPrefix(await storedHash(user.id));
    expect(await markerPrefixes(res.body)).toEqual([prefix, prefix, prefix]);
    expect(await storedItem(svc, userMarker(user.tenant_id, 'email', user.email!))).toBeUndefined();
    expect((await login(`moved_${id}`, PASSWORD)).status).toBe(200);
  });

  it('a stale prefix (the OLD password salt): the old password is still refused, the attempt rewrites the markers, the new password works', async () => {
    const user = await createUser();
    const oldPrefix = (await markerPrefixes(user))[0];
    const newHash = await hashPassword(NEW_PASSWORD);
    await setHashBehindMarkers(user.id, newHash);
    expect(oldPrefix).not.toBe(passwordHashPrefix(newHash));
    // The hash begun from the marker is the OLD password's hash under the OLD salt: it must not open the door.
    const refused = await login(user.username!, PASSWORD);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject(INVALID_CREDENTIALS);
    // The attempt found the stale prefix and put the right one on every marker, failure or not.
    const prefix = passwordHashPrefix(newHash);
    expect(await markerPrefixes(user)).toEqual([prefix, prefix, prefix]);
    expect((await login(user.username!, NEW_PASSWORD)).status).toBe(200);
    expect(await storedHash(user.id)).toBe(newHash);
  });

  it('a marker without a prefix (a user written before markers carried one): the first attempt adds it, the login works', async () => {
    const hash = await hashPassword(PASSWORD);
    const user = await putUser(svc.stack.runtime, {
      email: `bare.${n()}@example.com`,
      username: `bare_${n()}`,
      phone_number: `+1666${Date.now() % 1e7}`,
      password_hash: hash,
    });
    for (const key of markerKeys(user)) {
      await svc.stack.runtime.db.send(
        new UpdateCommand({ TableName: svc.stack.tableName, Key: key, UpdateExpression: 'REMOVE password_prefix' }),
      );
    }
    expect(await markerPrefixes(user)).toEqual([undefined, undefined, undefined]);
    expect((await login(user.phone_number!, 'not-the-password-at-all')).body).toMatchObject(INVALID_CREDENTIALS);
    const prefix = passwordHashPrefix(hash);
    expect(await markerPrefixes(user)).toEqual([prefix, prefix, prefix]);
    expect((await login(user.phone_number!, PASSWORD)).status).toBe(200);
  });

  it('a rehash at login (parameters rose) moves the markers to the new salt', async () => {
    const weak = await hashPassword(PASSWORD, { memoryKiB: 4096, passes: 1, parallelism: 1 });
    const user = await putUser(svc.stack.runtime, {
      email: `weak.${n()}@example.com`,
      username: `weak_${n()}`,
      phone_number: `+1777${Date.now() % 1e7}`,
      password_hash: weak,
    });
    expect(await markerPrefixes(user)).toEqual(Array(3).fill(passwordHashPrefix(weak)));
    expect((await login(user.email!, PASSWORD)).status).toBe(200);
    const rehashed = await storedHash(user.id);
    expect(parsePasswordHash(rehashed)?.params).toEqual(PASSWORD_HASH_PARAMS);
    expect(await markerPrefixes(user)).toEqual(Array(3).fill(passwordHashPrefix(rehashed)));
    // And the next login takes the new prefix: still the same password.
    expect((await login(user.email!, PASSWORD)).status).toBe(200);
  });

  it("a marker's prefix never stands in for the user's hash: a forged prefix with weak parameters opens nothing", async () => {
    const user = await createUser();
    // A prefix with the cheapest parameters a hash can have, as if written by someone who could write markers.
    const forged = '$argon2id$v=19$m=8,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA';
    for (const key of markerKeys(user)) {
      await svc.stack.runtime.db.send(
        new UpdateCommand({
          TableName: svc.stack.tableName,
          Key: key,
          UpdateExpression: 'SET password_prefix = :p',
          ExpressionAttributeValues: { ':p': forged },
        }),
      );
    }
    expect((await login(user.username!, 'wrong-password-entirely')).body).toMatchObject(INVALID_CREDENTIALS);
    expect((await login(user.username!, PASSWORD)).status).toBe(200);
    expect(await markerPrefixes(user)).toEqual(Array(3).fill(passwordHashPrefix(await storedHash(user.id))));
  });
});
