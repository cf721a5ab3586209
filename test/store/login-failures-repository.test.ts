import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { loginFailuresRepository } from '#shared/store/users/login-failures-repository.ts';
import { userLoginWrites } from '#shared/store/users/user-login-writes.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';

let table: TestTable;
let clock = new Date('2026-03-01T12:00:00.000Z');
const repo = () => loginFailuresRepository(table.db, table.tableName, () => clock, { lockoutFailures: 10, lockoutSeconds: 900 });
const stored = async (userId: string) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: keys.user(userId), ConsistentRead: true }))).Item;
const later = (seconds: number) => {
  clock = new Date(clock.getTime() + seconds * 1000);
};
/** A user item as the users store keeps it (the fields this test reads). */
async function newUser(): Promise<string> {
  const id = randomUUID();
  await table.db.send(
    new PutCommand({
      TableName: table.tableName,
      Item: { ...keys.user(id), type: 'User', id, tenant_id: DEFAULT_TENANT_ID, password_hash: '$argon2id$x', version: 3, blocked: false },
    }),
  );
  return id;
}

beforeAll(async () => {
  table = await createTestTable('login-failures');
});

describe('login failures, counted on the user item (docs/contract.md §7.3)', () => {
  it('admits 10 attempts, refuses the 11th with the seconds left, and admits again 15 minutes after the last', async () => {
    const user = await newUser();
    // The 10th is the one whose failure locks (`lockout.started`, docs/events.md).
    for (let i = 0; i < 10; i++)
      expect(await repo().admit(user)).toMatchObject({ admitted: true, locksIfFails: i === 9, liftsLockout: false });
    expect(await stored(user)).toMatchObject({ login_failures: 10, login_attempt_at: clock.getTime() });
    // A refusal names the tenant of the user it counted on (a locked event names only that tenant's user).
    expect(await repo().admit(user)).toEqual({ admitted: false, retryAfterSeconds: 900, tenantId: DEFAULT_TENANT_ID });
    later(600);
    expect(await repo().admit(user)).toEqual({ admitted: false, retryAfterSeconds: 300, tenantId: DEFAULT_TENANT_ID });
    // Refused attempts are not counted and do not extend the lockout.
    expect((await stored(user))?.login_failures).toBe(10);
    later(300);
    // The attempt after the lockout ran out: its success would lift the lockout, its failure lock again.
    expect(await repo().admit(user)).toMatchObject({ admitted: true, locksIfFails: true, liftsLockout: true });
    // Still no success: that attempt counted, so the next one waits again.
    expect(await repo().admit(user)).toEqual({ admitted: false, retryAfterSeconds: 900, tenantId: DEFAULT_TENANT_ID });
  });

  it('an admitted attempt returns the user as the counting write left it (the login needs no read of its own)', async () => {
    const user = await newUser();
    const admission = await repo().admit(user);
    expect(admission).toMatchObject({
      admitted: true,
      user: { id: user, tenant_id: DEFAULT_TENANT_ID, password_hash: '$argon2id$x', version: 3 },
    });
    // The record, not the item: no key attributes.
    expect(admission.admitted && admission.user && 'PK' in admission.user).toBe(false);
    // The count leaves `version` alone, so a concurrent merge of the user is not refused by it.
    expect((await stored(user))?.version).toBe(3);
  });

  it('20 parallel attempts: exactly 10 admitted, the count is 10 (no lost or extra count)', async () => {
    const user = await newUser();
    const answers = await Promise.all(Array.from({ length: 20 }, () => repo().admit(user)));
    expect(answers.filter((a) => a.admitted)).toHaveLength(10);
    expect(answers.filter((a) => !a.admitted)).toHaveLength(10);
    expect((await stored(user))?.login_failures).toBe(10);
  });

  it('a reset, or a recorded login, starts the count again', async () => {
    const user = await newUser();
    for (let i = 0; i < 9; i++) await repo().admit(user);
    await repo().reset(user);
    expect(await stored(user)).not.toHaveProperty('login_failures');
    expect(await stored(user)).not.toHaveProperty('login_attempt_at');
    for (let i = 0; i < 10; i++) expect((await repo().admit(user)).admitted).toBe(true);
    expect((await repo().admit(user)).admitted).toBe(false);
    // A successful login's one write clears the count with the rest (user-login-writes.ts).
    await userLoginWrites(table.db, table.tableName)({ user: { id: user, tenant_id: DEFAULT_TENANT_ID }, at: clock });
    expect(await stored(user)).toMatchObject({ last_login: clock.toISOString(), logins_count: 1, version: 4 });
    expect(await stored(user)).not.toHaveProperty('login_failures');
    expect((await repo().admit(user)).admitted).toBe(true);
  });

  it('a login that names no user is counted by its normalised identifier in the tenant, locked like a user, and kept a day', async () => {
    const login = { tenantId: DEFAULT_TENANT_ID, login: `Ghost.${randomUUID()}@Example.com` };
    for (let i = 0; i < 10; i++) {
      expect(await repo().admit(login)).toEqual({ admitted: true, user: undefined, locksIfFails: i === 9, liftsLockout: false });
    }
    // The lookup's spelling rules: an email without case is the same login; another tenant's is not.
    expect(await repo().admit({ ...login, login: login.login.toLowerCase() })).toEqual({ admitted: false, retryAfterSeconds: 900 });
    expect((await repo().admit({ ...login, tenantId: randomUUID() })).admitted).toBe(true);
    const { Items } = await table.db.send(new ScanCommand({ TableName: table.tableName }));
    const counts = Items!.filter((i) => String(i.PK).startsWith('LOGIN_FAILURES#'));
    // The identifier is not stored, only the SHA-256 of its marker key.
    expect(JSON.stringify(counts)).not.toContain('ghost');
    const mine = counts.find((i) => i.login_failures === 10)!;
    expect(mine).toMatchObject({ type: 'UnknownLoginFailures', login_attempt_at: clock.getTime(), ttl: clock.getTime() / 1000 + 86_400 });
    later(901);
    expect((await repo().admit(login)).admitted).toBe(true);
    expect((await repo().admit(login)).admitted).toBe(false);
  });

  it('leaveOneAttempt: a count at the limit goes back to one below it; below the limit, or no user, nothing changes', async () => {
    const user = await newUser();
    for (let i = 0; i < 10; i++) await repo().admit(user);
    await repo().leaveOneAttempt(user);
    expect((await stored(user))?.login_failures).toBe(9);
    // One attempt, then the limit again.
    expect((await repo().admit(user)).admitted).toBe(true);
    expect((await repo().admit(user)).admitted).toBe(false);
    const other = await newUser();
    for (let i = 0; i < 3; i++) await repo().admit(other);
    await repo().leaveOneAttempt(other);
    expect((await stored(other))?.login_failures).toBe(3);
    const before = (await table.db.send(new ScanCommand({ TableName: table.tableName, Select: 'COUNT' }))).Count;
    await repo().leaveOneAttempt(randomUUID());
    expect((await table.db.send(new ScanCommand({ TableName: table.tableName, Select: 'COUNT' }))).Count).toBe(before);
  });

  it('a user id with no item is admitted with no user and writes nothing; a reset of a missing user writes nothing', async () => {
    const before = (await table.db.send(new ScanCommand({ TableName: table.tableName, Select: 'COUNT' }))).Count;
    expect(await repo().admit(randomUUID())).toEqual({ admitted: true, user: undefined, locksIfFails: false, liftsLockout: false });
    await repo().reset(randomUUID());
    const after = (await table.db.send(new ScanCommand({ TableName: table.tableName, Select: 'COUNT' }))).Count;
    expect(after).toBe(before);
  });
});
