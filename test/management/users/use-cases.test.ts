import { describe, expect, it } from 'vitest';
import type { RecordParams } from '#shared/lists/index.ts';
import { parseListParams, usersCollection } from '#shared/lists/index.ts';
import { createUser } from '#shared/management/users/create-user.ts';
import { enrollUserOtp } from '#shared/management/users/enroll-user-otp.ts';
import { listUsers } from '#shared/management/users/list-users.ts';
import { setUserPassword } from '#shared/management/users/set-user-password.ts';
import { updateUser } from '#shared/management/users/update-user.ts';
import { memoryUsers, userAccess } from '../../support/management/memory-users.ts';

/**
 * Use-case tier for Users: what the use cases decide without the store (password rules before any
 * hashing, the self rule, the old-password lockout, marker lookups in lists). The same behaviour
 * over HTTP and DynamoDB Local: test/management/users/.
 */
const none: RecordParams = { fields: undefined, expand: false };
const ADMIN = userAccess('0190b1e0-0000-7000-8000-0000000000ad', ['read:users', 'create:users', 'update:users', 'delete:users']);
const PASSWORD = 'correct-Horse-battery-9137';

describe('Users use cases on in-memory deps', () => {
  it('create: no login is 400; a weak password is 400 before anything is hashed; the view has no hash', async () => {
    const m = memoryUsers();
    await expect(createUser(m.deps, ADMIN, { name: 'x' }, none)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('body.email'),
    });
    await expect(createUser(m.deps, ADMIN, { email: 'a@example.com', password: 'a@example.com' }, none)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('body.password'),
    });
    expect(m.hashed).toEqual([]);
    const made = await createUser(m.deps, ADMIN, { email: 'a@example.com', password: PASSWORD }, none);
    expect(m.hashed).toEqual([PASSWORD]);
    expect(JSON.stringify(made)).not.toContain(PASSWORD);
    expect(made).not.toHaveProperty('password_hash');
    expect(m.users.get(String(made.id))?.password_hash).toBe(`hashed:${PASSWORD}`);
  });

  it('password: self needs old_password and counts tries; another user is 403; update:users needs neither', async () => {
    const m = memoryUsers({ lockoutFailures: 2 });
    const a = await createUser(m.deps, ADMIN, { email: 'a@example.com', password: PASSWORD }, none);
    const b = await createUser(m.deps, ADMIN, { email: 'b@example.com', password: PASSWORD }, none);
    const self = userAccess(String(a.id), []);
    await expect(setUserPassword(m.deps, self, String(b.id), { password: `${PASSWORD}!`, old_password: PASSWORD })).rejects.toMatchObject({
      status: 403,
    });
    await expect(setUserPassword(m.deps, self, String(a.id), { password: `${PASSWORD}!` })).rejects.toMatchObject({ status: 400 });
    await expect(setUserPassword(m.deps, self, String(a.id), { password: `${PASSWORD}!`, old_password: 'nope' })).rejects.toMatchObject({
      status: 403,
    });
    await expect(setUserPassword(m.deps, self, String(a.id), { password: `${PASSWORD}!`, old_password: 'nope' })).rejects.toMatchObject({
      status: 403,
    });
    // Locked: the right old password is refused too.
    await expect(setUserPassword(m.deps, self, String(a.id), { password: `${PASSWORD}!`, old_password: PASSWORD })).rejects.toMatchObject({
      status: 429,
      headers: { 'Retry-After': '900' },
    });
    await setUserPassword(m.deps, ADMIN, String(a.id), { password: `${PASSWORD}!` });
    expect(m.users.get(String(a.id))?.password_hash).toBe(`hashed:${PASSWORD}!`);
    m.failures.clear();
    await setUserPassword(m.deps, self, String(a.id), { password: `${PASSWORD}?`, old_password: `${PASSWORD}!` });
    expect(m.failures.has(String(a.id))).toBe(false);
  });

  it('OTP enrolment: the user itself with its current password only; the URI names the user', async () => {
    const m = memoryUsers();
    const a = await createUser(m.deps, ADMIN, { email: 'otp@example.com', password: PASSWORD }, none);
    const self = userAccess(String(a.id), []);
    await expect(enrollUserOtp(m.deps, self, String(a.id), {})).rejects.toMatchObject({ status: 400 });
    await expect(enrollUserOtp(m.deps, self, String(a.id), { password: 'nope' })).rejects.toMatchObject({ status: 403 });
    const enrolled = await enrollUserOtp(m.deps, self, String(a.id), { password: PASSWORD });
    expect(enrolled.otpauth_uri).toContain('otp%40example.com');
    await expect(enrollUserOtp(m.deps, ADMIN, String(a.id), {})).rejects.toMatchObject({ status: 403 });
    await expect(
      enrollUserOtp(m.deps, userAccess('0190b1e0-0000-7000-8000-0000000000ee', []), String(a.id), { password: PASSWORD }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it('update keeps a login identifier; list lookups find by marker in any case', async () => {
    const m = memoryUsers();
    const a = await createUser(m.deps, ADMIN, { email: 'Case@Example.com', username: 'Casey' }, none);
    await expect(updateUser(m.deps, ADMIN, String(a.id), { email: null, username: null }, none)).rejects.toMatchObject({ status: 400 });
    const list = (q: string) => listUsers(m.deps, ADMIN, parseListParams(usersCollection, { q }));
    expect((await list('(email=case@EXAMPLE.com)')).items.map((u) => u.id)).toEqual([a.id]);
    expect((await list('(username=CASEY) and (email=case@example.com)')).items.map((u) => u.id)).toEqual([a.id]);
    expect((await list('(username=casey) and (blocked=true)')).items).toEqual([]);
  });
});
