import { randomUUID } from 'node:crypto';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { loginFailuresRepository } from '../../shared/store/login-failures-repository.ts';
import { keys } from '../../shared/store/table-keys.ts';
import { createTestTable, type TestTable } from '../support/dynamodb.ts';

let table: TestTable;
let clock = new Date('2026-03-01T12:00:00.000Z');
const repo = () => loginFailuresRepository(table.db, table.tableName, () => clock, { lockoutFailures: 10, lockoutSeconds: 900 });
const stored = async (userId: string) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: keys.userLoginFailures(userId), ConsistentRead: true }))).Item;
const later = (seconds: number) => {
  clock = new Date(clock.getTime() + seconds * 1000);
};

beforeAll(async () => {
  table = await createTestTable('login-failures');
});

describe('login failures (API.md §7.3)', () => {
  it('admits 10 attempts, refuses the 11th with the seconds left, and admits again 15 minutes after the last', async () => {
    const user = randomUUID();
    for (let i = 0; i < 10; i++) expect(await repo().admit(user)).toEqual({ admitted: true });
    expect(await stored(user)).toMatchObject({ failures: 10, type: 'UserLoginFailures', user_id: user });
    expect(await repo().admit(user)).toEqual({ admitted: false, retryAfterSeconds: 900 });
    later(600);
    expect(await repo().admit(user)).toEqual({ admitted: false, retryAfterSeconds: 300 });
    // Refused attempts are not counted and do not extend the lockout.
    expect((await stored(user))?.failures).toBe(10);
    later(300);
    expect(await repo().admit(user)).toEqual({ admitted: true });
    // Still no success: that attempt counted, so the next one waits again.
    expect(await repo().admit(user)).toEqual({ admitted: false, retryAfterSeconds: 900 });
  });

  it('20 parallel attempts: exactly 10 admitted, the count is 10 (no lost or extra count)', async () => {
    const user = randomUUID();
    const answers = await Promise.all(Array.from({ length: 20 }, () => repo().admit(user)));
    expect(answers.filter((a) => a.admitted)).toHaveLength(10);
    expect(answers.filter((a) => !a.admitted)).toHaveLength(10);
    expect((await stored(user))?.failures).toBe(10);
  });

  it('a reset starts the count again', async () => {
    const user = randomUUID();
    for (let i = 0; i < 9; i++) await repo().admit(user);
    await repo().reset(user);
    expect(await stored(user)).toBeUndefined();
    for (let i = 0; i < 10; i++) expect((await repo().admit(user)).admitted).toBe(true);
  });

  it('an unknown login writes nothing', async () => {
    const before = (await table.db.send(new ScanCommand({ TableName: table.tableName, Select: 'COUNT' }))).Count;
    await repo().admitUnknown();
    await repo().admitUnknown();
    const after = (await table.db.send(new ScanCommand({ TableName: table.tableName, Select: 'COUNT' }))).Count;
    expect(after).toBe(before);
  });
});
