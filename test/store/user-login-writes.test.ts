import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, passwordHashPrefix } from '#shared/crypto/password-hash.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import type { Runtime } from '#shared/runtime.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { userLoginWrites, userRehashWrite } from '#shared/store/users/user-login-writes.ts';
import { loginHintWrite, userLoginMarkers } from '#shared/store/users/user-markers.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';
import { conflictingDb } from '../support/store/conflicting-db.ts';
import { putUser } from '../support/store/user-items.ts';

let table: TestTable;
const at = new Date('2026-03-01T12:00:00.000Z');
const record = () => userLoginWrites(table.db, table.tableName);
/** Cheap parameters: these tests only need readable PHC strings with distinct salts. */
const WEAK = { memoryKiB: 64, passes: 1, parallelism: 1 };
const storedKey = async (key: Record<string, unknown>) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }))).Item;
const stored = (userId: string) => storedKey(keys.user(userId));

/** What putUser needs of a runtime: this file's table. */
const tableRuntime = () => ({ db: table.db, config: { tableName: table.tableName }, now: () => new Date() }) as unknown as Runtime;

beforeAll(async () => {
  table = await createTestTable('user-login');
});

describe('user login writes', () => {
  it('records last_login and counts every login, parallel ones included; version is bumped', async () => {
    const user = await putUser(tableRuntime(), { password_hash: 'old' });
    await Promise.all(Array.from({ length: 10 }, () => record()({ user, at })));
    expect(await stored(user.id)).toMatchObject({ last_login: at.toISOString(), logins_count: 10, version: 11, password_hash: 'old' });
  });

  it('stores the new hash only in place of the hash that was checked', async () => {
    const user = await putUser(tableRuntime(), { password_hash: 'checked' });
    await record()({ user, at, rehash: { oldHash: 'checked', newHash: 'fresh' } });
    expect(await stored(user.id)).toMatchObject({ password_hash: 'fresh', logins_count: 1 });

    // The password changed between the check and the write: the new password stays, the login counts.
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.user(user.id),
        UpdateExpression: 'SET password_hash = :p',
        ExpressionAttributeValues: { ':p': 'changed' },
      }),
    );
    await record()({ user, at, rehash: { oldHash: 'fresh', newHash: 'rehash-of-old-password' } });
    expect(await stored(user.id)).toMatchObject({ password_hash: 'changed', logins_count: 2 });
  });

  it('a user deleted meanwhile is not brought back', async () => {
    const id = randomUUID();
    await record()({ user: { id, tenant_id: DEFAULT_TENANT_ID }, at });
    await record()({ user: { id, tenant_id: DEFAULT_TENANT_ID }, at, rehash: { oldHash: 'a', newHash: 'b' } });
    expect(await stored(id)).toBeUndefined();
  });

  it('a rehash alone: the hash replaced only if it is still the one checked, no login recorded, version bumped', async () => {
    const rehash = userRehashWrite(table.db, table.tableName);
    const user = await putUser(tableRuntime(), { password_hash: 'checked' });
    const before = await stored(user.id);
    await rehash(user, { oldHash: 'checked', newHash: 'fresh' });
    const after = await stored(user.id);
    expect(after).toEqual({ ...before, password_hash: 'fresh', version: (before?.version ?? 0) + 1 });
    // Changed meanwhile: the new password stays.
    await rehash(user, { oldHash: 'checked', newHash: 'rehash-of-old-password' });
    expect(await stored(user.id)).toMatchObject({ password_hash: 'fresh' });
    // Deleted meanwhile: not brought back.
    const gone = randomUUID();
    await rehash({ ...user, id: gone }, { oldHash: 'a', newHash: 'b' });
    expect(await stored(gone)).toBeUndefined();
  });

  it("the user's login markers get the prefix of the hash stored: a rehash alone, a login that asks for it; not a rehash that lost", async () => {
    const n = randomUUID().slice(0, 8);
    const [a, b, c, other] = await Promise.all(['pw one', 'pw one', 'pw one', 'pw two'].map((p) => hashPassword(p, WEAK)));
    const user = await putUser(tableRuntime(), { username: `m_${n}`, phone_number: `+1888${Date.now() % 1e7}`, password_hash: a });
    const prefixes = async () => Promise.all(userLoginMarkers(user).map(async (key) => (await storedKey(key))?.password_prefix));
    expect(await prefixes()).toEqual(Array(3).fill(passwordHashPrefix(a)));

    await userRehashWrite(table.db, table.tableName)(user, { oldHash: a!, newHash: b! });
    expect(await prefixes()).toEqual(Array(3).fill(passwordHashPrefix(b)));

    await record()({ user, at, rehash: { oldHash: b!, newHash: c! } });
    expect(await prefixes()).toEqual(Array(3).fill(passwordHashPrefix(c)));

    // The hash changed meanwhile: the rehash loses, and so does its prefix.
    await record()({ user, at, rehash: { oldHash: a!, newHash: other! } });
    expect((await stored(user.id))?.password_hash).toBe(c);
    expect(await prefixes()).toEqual(Array(3).fill(passwordHashPrefix(c)));

    // No rehash: the login write leaves the markers alone (a stale one is the attempt's to fix: user-login.ts).
    await record()({ user, at });
    expect(await prefixes()).toEqual(Array(3).fill(passwordHashPrefix(c)));
  });

  it("loginHintWrite: only while the hash is still the user's and every marker still names the user; it never throws", async () => {
    const write = loginHintWrite(table.db, table.tableName);
    const n = randomUUID().slice(0, 8);
    const [current, older] = await Promise.all(['pw three', 'pw four'].map((p) => hashPassword(p, WEAK)));
    const user = await putUser(tableRuntime(), { username: `h_${n}`, password_hash: current });
    const prefixes = async () => Promise.all(userLoginMarkers(user).map(async (key) => (await storedKey(key))?.password_prefix));
    const before = await prefixes();

    // A login that read the user before a password change: its hash is no longer the user's.
    await write(user, older);
    expect(await prefixes()).toEqual(before);

    // The username now names another user: nothing is written, not even the email's marker
    // (whose prefix is taken off first, so a write would show).
    const [emailMarker, usernameMarker] = ['USER_EMAIL', 'USER_NAME'].map(
      (kind) => userLoginMarkers(user).find((k) => String(k.PK).includes(kind))!,
    );
    await table.db.send(new UpdateCommand({ TableName: table.tableName, Key: emailMarker, UpdateExpression: 'REMOVE password_prefix' }));
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: usernameMarker,
        UpdateExpression: 'SET target_id = :o',
        ExpressionAttributeValues: { ':o': randomUUID() },
      }),
    );
    await write(user, current);
    expect((await storedKey(emailMarker!))?.password_prefix).toBeUndefined();
    expect((await storedKey(usernameMarker!))?.password_prefix).toBe(before[1]);

    // A failing call (no such table) is swallowed: the hint is not worth failing a stored change for.
    await expect(loginHintWrite(table.db, 'no-such-table')(user, current)).resolves.toBeUndefined();
  });
});

describe('a login write meets a transaction on the user item', () => {
  it('the login is recorded once the transaction is done (retried, counted once)', async () => {
    const user = await putUser(tableRuntime(), { password_hash: 'checked' });
    const busy = conflictingDb(table.db, 'UpdateCommand', 3);
    await userLoginWrites(busy.db, table.tableName)({ user, at, rehash: { oldHash: 'checked', newHash: 'fresh' } });
    expect(busy.count()).toBe(3);
    expect(await stored(user.id)).toMatchObject({ last_login: at.toISOString(), logins_count: 1, password_hash: 'fresh' });
  });

  it('a rehash alone is stored once the transaction is done', async () => {
    const user = await putUser(tableRuntime(), { password_hash: 'checked' });
    const busy = conflictingDb(table.db, 'UpdateCommand', 2);
    await userRehashWrite(busy.db, table.tableName)(user, { oldHash: 'checked', newHash: 'fresh' });
    expect(busy.count()).toBe(2);
    expect(await stored(user.id)).toMatchObject({ password_hash: 'fresh' });
  });

  it('a transaction that never ends is a 409 conflict after the retries, and nothing is written', async () => {
    const user = await putUser(tableRuntime(), { password_hash: 'checked' });
    const before = await stored(user.id);
    const busy = conflictingDb(table.db, 'UpdateCommand', 1_000);
    await expect(userLoginWrites(busy.db, table.tableName)({ user, at })).rejects.toMatchObject({ status: 409, code: 'conflict' });
    expect(busy.count()).toBe(8);
    expect(await stored(user.id)).toEqual(before);
  });
});
