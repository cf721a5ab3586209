import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, base32Encode } from '#shared/crypto/totp.ts';
import type { Runtime } from '#shared/runtime.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { otpRepository } from '#shared/store/users/otp-repository.ts';
import { aesSecretBox } from '../support/keys/aes-secret-box.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';
import { putUser } from '../support/store/user-items.ts';

let table: TestTable;
const now = () => new Date('2026-03-01T12:00:00.000Z');
const box = aesSecretBox();
const repo = () => otpRepository(table.db, table.tableName, now, box, { maxFailures: 5 });
const stored = async (userId: string) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: keys.userOtp(userId), ConsistentRead: true }))).Item;

/** What putUser needs of a runtime: this file's table. */
const tableRuntime = () => ({ db: table.db, config: { tableName: table.tableName }, now: () => new Date() }) as unknown as Runtime;

beforeAll(async () => {
  table = await createTestTable('otp');
});

describe('OTP authenticator store', () => {
  it('enrols: returns a base32 160-bit secret once and stores it only sealed', async () => {
    const user = await putUser(tableRuntime());
    const secret = await repo().enroll(user.id);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(secret)?.length).toBe(20);
    const item = await stored(user.id);
    expect(item).toMatchObject({ type: 'UserOtp', user_id: user.id, last_step: -1, failures: 0 });
    expect(JSON.stringify(item)).not.toContain(secret);
    expect(await box.open(item?.secret_sealed as string)).toBe(secret);
    const found = await repo().find(user.id);
    expect(found && base32Encode(found.secret)).toBe(secret);
    expect(found).toMatchObject({ lastStep: -1, failures: 0, disabled: false });
  });

  it('enrolling a user that does not exist is a 404 and writes nothing', async () => {
    const id = randomUUID();
    await expect(repo().enroll(id)).rejects.toMatchObject({ status: 404 });
    expect(await stored(id)).toBeUndefined();
  });

  it('accepts a step once: the same or an older step is refused afterwards', async () => {
    const user = await putUser(tableRuntime());
    await repo().enroll(user.id);
    const { sealed } = (await repo().find(user.id))!;
    expect(await repo().accept(user.id, sealed, 1000)).toBe(true);
    expect(await repo().accept(user.id, sealed, 1000)).toBe(false);
    expect(await repo().accept(user.id, sealed, 999)).toBe(false);
    expect(await repo().accept(user.id, sealed, 1001)).toBe(true);
    expect((await stored(user.id))?.last_step).toBe(1001);
  });

  it('20 parallel accepts of one step: exactly one wins', async () => {
    const user = await putUser(tableRuntime());
    await repo().enroll(user.id);
    const { sealed } = (await repo().find(user.id))!;
    const results = await Promise.all(Array.from({ length: 20 }, () => repo().accept(user.id, sealed, 5000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('counts failures atomically (20 parallel: 20), disables at the limit, and only re-enrolment clears it', async () => {
    const user = await putUser(tableRuntime());
    await repo().enroll(user.id);
    const { sealed } = (await repo().find(user.id))!;
    const counts = await Promise.all(Array.from({ length: 20 }, () => repo().recordFailure(user.id, sealed)));
    expect([...counts].sort((a, b) => a! - b!)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const disabled = (await repo().find(user.id))!;
    expect(disabled).toMatchObject({ failures: 20, disabled: true });
    // A right code of a new step no longer gets in: the success cannot reset a disabled authenticator.
    expect(await repo().accept(user.id, sealed, 7000)).toBe(false);
    await repo().enroll(user.id);
    const fresh = (await repo().find(user.id))!;
    expect(fresh).toMatchObject({ failures: 0, disabled: false, lastStep: -1 });
    expect(fresh.sealed).not.toBe(sealed);
    // A failure or success against the replaced enrolment does not touch the new one.
    expect(await repo().recordFailure(user.id, sealed)).toBeUndefined();
    expect(await repo().accept(user.id, sealed, 8000)).toBe(false);
    expect((await repo().find(user.id))?.failures).toBe(0);
  });

  it('a success resets the failure count', async () => {
    const user = await putUser(tableRuntime());
    await repo().enroll(user.id);
    const { sealed } = (await repo().find(user.id))!;
    await repo().recordFailure(user.id, sealed);
    await repo().recordFailure(user.id, sealed);
    expect(await repo().accept(user.id, sealed, 10)).toBe(true);
    expect((await stored(user.id))?.failures).toBe(0);
  });

  it('removes the authenticator', async () => {
    const user = await putUser(tableRuntime());
    await repo().enroll(user.id);
    expect(await repo().remove(user.id)).toBe(true);
    expect(await repo().find(user.id)).toBeUndefined();
    expect(await repo().remove(user.id)).toBe(false);
  });
});
