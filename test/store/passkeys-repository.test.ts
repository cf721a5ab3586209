import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_PASSKEYS_PER_USER, type PasskeyRecord } from '#shared/records/passkey-record.ts';
import { USER_VIEW_FIELDS } from '#shared/records/user-record.ts';
import type { Runtime } from '#shared/runtime.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { credentialIdHash, type NewPasskey, passkeysRepository } from '#shared/store/users/passkeys-repository.ts';
import { usersRepository } from '#shared/store/users/users-repository.ts';
import { publicUser } from '#shared/users/register-user.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';
import { conflictingDb } from '../support/store/conflicting-db.ts';
import { putUser } from '../support/store/user-items.ts';

let table: TestTable;
const now = () => new Date('2026-03-01T12:00:00.000Z');
const repo = () => passkeysRepository(table.db, table.tableName, now);
const storedKey = async (key: Record<string, unknown>) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }))).Item;
const storedUser = (userId: string) => storedKey(keys.user(userId));
const storedPasskey = (userId: string, credentialId: string) => storedKey(keys.userPasskey(userId, credentialIdHash(credentialId)));
const partition = async (userId: string) =>
  (
    await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.userPartition(userId) },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

/** What putUser needs of a runtime: this file's table. */
const tableRuntime = () => ({ db: table.db, config: { tableName: table.tableName }, now: () => new Date() }) as unknown as Runtime;

const newPasskey = (userId: string, fields: Partial<NewPasskey> = {}): NewPasskey => ({
  user_id: userId,
  tenant_id: 'default',
  credential_id: randomBytes(32).toString('base64url'),
  public_key: randomBytes(77).toString('base64url'),
  counter: 0,
  transports: ['internal'],
  device_type: 'singleDevice',
  backed_up: false,
  aaguid: '00000000-0000-0000-0000-000000000000',
  name: 'Chrome on Linux',
  ...fields,
});

const PASSKEY_KEYS = [
  'aaguid',
  'backed_up',
  'counter',
  'created_at',
  'credential_id',
  'device_type',
  'id',
  'name',
  'public_key',
  'tenant_id',
  'transports',
  'user_id',
];

beforeAll(async () => {
  table = await createTestTable('passkeys');
});

describe('passkeys repository', () => {
  it('adds, finds by credential, lists oldest first and removes; passkeys_count follows', async () => {
    const user = await putUser(tableRuntime());
    const a = await repo().add(newPasskey(user.id, { name: 'first' }));
    const b = await repo().add(newPasskey(user.id, { name: 'second', device_type: 'multiDevice', backed_up: true }));
    expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.created_at).toBe(now().toISOString());
    expect(Object.keys(a).sort()).toEqual(PASSKEY_KEYS);
    expect(await storedPasskey(user.id, a.credential_id)).toEqual({
      PK: `USER#${user.id}`,
      SK: `PASSKEY#${credentialIdHash(a.credential_id)}`,
      type: 'UserPasskey',
      schema_version: 1,
      ...a,
    });
    expect(credentialIdHash(a.credential_id)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await storedUser(user.id))?.passkeys_count).toBe(2);

    expect(await repo().findByCredential(user.id, b.credential_id)).toEqual(b);
    expect(await repo().findByCredential(user.id, 'unknown')).toBeUndefined();
    // Another user's credential is not this user's.
    expect(await repo().findByCredential(randomUUID(), a.credential_id)).toBeUndefined();
    // A credential id longer than any sort key still answers (its hash is the key).
    expect(await repo().findByCredential(user.id, 'x'.repeat(5000))).toBeUndefined();

    expect((await repo().list(user.id)).map((p) => p.name)).toEqual(['first', 'second']);

    expect(await repo().remove(user.id, a.id)).toBe(true);
    expect(await repo().remove(user.id, a.id)).toBe(false);
    expect(await repo().remove(user.id, randomUUID())).toBe(false);
    expect(await storedPasskey(user.id, a.credential_id)).toBeUndefined();
    expect((await repo().list(user.id)).map((p) => p.id)).toEqual([b.id]);
    expect((await storedUser(user.id))?.passkeys_count).toBe(1);
  });

  it('removing another user’s passkey id is false and removes nothing', async () => {
    const owner = await putUser(tableRuntime());
    const other = await putUser(tableRuntime());
    const p = await repo().add(newPasskey(owner.id));
    expect(await repo().remove(other.id, p.id)).toBe(false);
    expect(await storedPasskey(owner.id, p.credential_id)).toBeDefined();
    expect((await storedUser(owner.id))?.passkeys_count).toBe(1);
    expect((await storedUser(other.id))?.passkeys_count).toBeUndefined();
  });

  it('a duplicate credential id for the user is 409 and changes nothing', async () => {
    const user = await putUser(tableRuntime());
    const first = await repo().add(newPasskey(user.id));
    await expect(repo().add(newPasskey(user.id, { credential_id: first.credential_id, name: 'again' }))).rejects.toMatchObject({
      status: 409,
      code: 'conflict',
      message: expect.stringContaining('already registered'),
    });
    expect((await repo().list(user.id)).map((p) => p.name)).toEqual([first.name]);
    expect((await storedUser(user.id))?.passkeys_count).toBe(1);
  });

  it('adding to a user that does not exist is 404 and writes nothing', async () => {
    const id = randomUUID();
    const p = newPasskey(id);
    await expect(repo().add(p)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect(await storedPasskey(id, p.credential_id)).toBeUndefined();
    expect(await storedUser(id)).toBeUndefined();
  });

  it(`caps at ${MAX_PASSKEYS_PER_USER} under 25 concurrent adds: exactly ${MAX_PASSKEYS_PER_USER} land, the rest 409 naming the cap`, async () => {
    const user = await putUser(tableRuntime());
    const results = await Promise.allSettled(Array.from({ length: 25 }, (_, i) => repo().add(newPasskey(user.id, { name: `k${i}` }))));
    const landed = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(landed).toHaveLength(MAX_PASSKEYS_PER_USER);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.reason).toMatchObject({ status: 409, code: 'conflict', message: `A user has at most ${MAX_PASSKEYS_PER_USER} passkeys.` });
    }
    expect(await repo().list(user.id)).toHaveLength(MAX_PASSKEYS_PER_USER);
    expect((await storedUser(user.id))?.passkeys_count).toBe(MAX_PASSKEYS_PER_USER);
    // One removed frees one place.
    const [oldest] = await repo().list(user.id);
    expect(await repo().remove(user.id, oldest!.id)).toBe(true);
    await repo().add(newPasskey(user.id));
    await expect(repo().add(newPasskey(user.id))).rejects.toMatchObject({ status: 409 });
    expect((await storedUser(user.id))?.passkeys_count).toBe(MAX_PASSKEYS_PER_USER);
  }, 60_000);

  it('passkeys_count never shows in the User view and survives a PATCH', async () => {
    const user = await putUser(tableRuntime(), { password_hash: 'h' });
    await repo().add(newPasskey(user.id));
    const users = usersRepository(table.db, table.tableName, now);
    const patched = await users.update(user.id, { name: 'Renamed', user_metadata: { a: 1 } }, 'test');
    expect(patched.name).toBe('Renamed');
    expect(patched.passkeys_count).toBe(1);
    expect((await storedUser(user.id))?.passkeys_count).toBe(1);
    const view = publicUser(patched);
    expect(view).not.toHaveProperty('passkeys_count');
    expect(USER_VIEW_FIELDS).not.toContain('passkeys_count');
  });

  describe('recordLogin', () => {
    const login = async (passkeyFields: Partial<NewPasskey> = {}) => {
      const user = await putUser(tableRuntime());
      const passkey = await repo().add(newPasskey(user.id, { counter: 5, ...passkeyFields }));
      return { user, passkey };
    };

    it('writes last_login, logins_count, version and clears the lockout count with the counter and last_used_at', async () => {
      const { user, passkey } = await login();
      await table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: keys.user(user.id),
          UpdateExpression: 'SET login_failures = :n, login_attempt_at = :t',
          ExpressionAttributeValues: { ':n': 3, ':t': Date.now() },
        }),
      );
      const at = new Date('2026-03-02T08:00:00.000Z');
      expect(await repo().recordLogin({ userId: user.id, at, passkey, counter: 6 })).toBe(true);
      const stored = await storedUser(user.id);
      expect(stored).toMatchObject({ last_login: at.toISOString(), logins_count: 1, version: user.version + 1, passkeys_count: 1 });
      expect(stored).not.toHaveProperty('login_failures');
      expect(stored).not.toHaveProperty('login_attempt_at');
      expect(await storedPasskey(user.id, passkey.credential_id)).toMatchObject({ counter: 6, last_used_at: at.toISOString() });
      expect(await repo().findByCredential(user.id, passkey.credential_id)).toEqual({
        ...passkey,
        counter: 6,
        last_used_at: at.toISOString(),
      });
    });

    it('a stale counter is false and writes nothing, neither the user nor the passkey', async () => {
      const { user, passkey } = await login();
      const at = new Date('2026-03-02T08:00:00.000Z');
      expect(await repo().recordLogin({ userId: user.id, at, passkey: { ...passkey, counter: 4 }, counter: 9 })).toBe(false);
      expect(await storedUser(user.id)).toMatchObject({ last_login: null, logins_count: 0, version: user.version });
      const stored = await storedPasskey(user.id, passkey.credential_id);
      expect(stored?.counter).toBe(5);
      expect(stored).not.toHaveProperty('last_used_at');
    });

    it('two concurrent recordLogins with the same read counter: exactly one is true', async () => {
      const { user, passkey } = await login();
      const at = new Date('2026-03-02T08:00:00.000Z');
      const results = await Promise.all(
        Array.from({ length: 2 }, (_, i) => repo().recordLogin({ userId: user.id, at, passkey, counter: 6 + i })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = 6 + results.indexOf(true);
      expect((await storedPasskey(user.id, passkey.credential_id))?.counter).toBe(winner);
      expect(await storedUser(user.id)).toMatchObject({ logins_count: 1, version: user.version + 1 });
    });

    it('ten concurrent recordLogins from one read: exactly one is true, one login counted', async () => {
      const { user, passkey } = await login();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => repo().recordLogin({ userId: user.id, at: now(), passkey, counter: 100 + i })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await storedUser(user.id)).toMatchObject({ logins_count: 1 });
    });

    it('a removed passkey is false and records no login', async () => {
      const { user, passkey } = await login();
      expect(await repo().remove(user.id, passkey.id)).toBe(true);
      expect(await repo().recordLogin({ userId: user.id, at: now(), passkey, counter: 6 })).toBe(false);
      expect(await storedUser(user.id)).toMatchObject({ logins_count: 0, last_login: null, passkeys_count: 0 });
      expect(await storedPasskey(user.id, passkey.credential_id)).toBeUndefined();
    });

    it('a passkey of user A presented for user B is false and writes nothing', async () => {
      const { passkey } = await login();
      const b = await putUser(tableRuntime());
      expect(await repo().recordLogin({ userId: b.id, at: now(), passkey, counter: 6 })).toBe(false);
      expect(await storedUser(b.id)).toMatchObject({ logins_count: 0, version: b.version });
      expect(await storedPasskey(b.id, passkey.credential_id)).toBeUndefined();
    });

    it('a user deleted meanwhile is false', async () => {
      const { user, passkey } = await login();
      await usersRepository(table.db, table.tableName, now).delete(user.id);
      expect(await repo().recordLogin({ userId: user.id, at: now(), passkey, counter: 6 })).toBe(false);
      expect(await storedUser(user.id)).toBeUndefined();
    });

    it('another transaction holding an item: re-run, then recorded', async () => {
      const { user, passkey } = await login();
      const busy = conflictingDb(table.db, 'TransactWriteCommand', 2);
      const conflicted = passkeysRepository(busy.db, table.tableName, now);
      expect(await conflicted.recordLogin({ userId: user.id, at: now(), passkey, counter: 6 })).toBe(true);
      expect(busy.count()).toBe(2);
      expect((await storedPasskey(user.id, passkey.credential_id))?.counter).toBe(6);
      expect((await storedUser(user.id))?.logins_count).toBe(1);
    });
  });

  it('deleting the user removes its passkeys (and nothing of another user)', async () => {
    const user = await putUser(tableRuntime());
    const other = await putUser(tableRuntime());
    const mine: PasskeyRecord[] = [];
    for (let i = 0; i < 3; i++) mine.push(await repo().add(newPasskey(user.id)));
    const theirs = await repo().add(newPasskey(other.id));
    expect(await usersRepository(table.db, table.tableName, now).delete(user.id)).toBe(true);
    expect(await partition(user.id)).toEqual([]);
    for (const p of mine) expect(await storedPasskey(user.id, p.credential_id)).toBeUndefined();
    expect(await repo().list(user.id)).toEqual([]);
    expect(await repo().list(other.id)).toEqual([theirs]);
    // The deleted user can get none back.
    await expect(repo().add(newPasskey(user.id))).rejects.toMatchObject({ status: 404 });
    expect(await partition(user.id)).toEqual([]);
  });

  it('a user delete interrupted after the user item is finished by the next delete: its passkeys go then', async () => {
    const user = await putUser(tableRuntime());
    const p = await repo().add(newPasskey(user.id));
    // The user's transaction commits, then the container stops at the passkeys' BatchWriteItem.
    const stopping = new Proxy(table.db, {
      get(target, prop, receiver) {
        if (prop !== 'send') return Reflect.get(target, prop, receiver);
        return async (cmd: object) => {
          if (cmd.constructor.name === 'BatchWriteCommand') throw new Error('simulated crash: the container stopped here');
          return target.send(cmd as never);
        };
      },
    });
    const crashed = usersRepository(stopping, table.tableName, now);
    await expect(crashed.delete(user.id)).rejects.toThrow(/simulated crash/);
    expect(await storedUser(user.id)).toBeUndefined();
    expect(await storedPasskey(user.id, p.credential_id)).toBeDefined();
    // Meanwhile the passkey signs nobody in, and none can be added.
    expect(await repo().recordLogin({ userId: user.id, at: now(), passkey: p, counter: 1 })).toBe(false);
    await expect(repo().add(newPasskey(user.id))).rejects.toMatchObject({ status: 404 });
    // The next delete of the id (a 404 at the API) sweeps them.
    expect(await usersRepository(table.db, table.tableName, now).delete(user.id)).toBe(false);
    expect(await partition(user.id)).toEqual([]);
  });
});
