import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Every line the service can write, DEBUG included (the suite runs at WARN): set before any module
// loads the logger (see test/http/logs.test.ts).
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
});

const { captureLogLines, captureStdout } = await import('../../support/service/capture-stdout.ts');
const { keys } = await import('#shared/store/core/table-keys.ts');
const { usersFixture } = await import('../../support/management/users-fixture.ts');

let fx: Awaited<ReturnType<typeof usersFixture>>;
beforeAll(async () => {
  // The setup's own request lines are not what this file checks: kept off the test output.
  await captureStdout(async () => {
    fx = await usersFixture();
  });
});
afterAll(async () => fx?.stop());

describe('Users logs', () => {
  it('no password, old password or hash reaches a log line, on success or failure', async () => {
    const secret = 'Log-me-never-7781-xyz';
    let id = '';
    const { raw, lines } = await captureLogLines(async () => {
      const res = await fx.call('POST', '/users', { body: { email: 'logs@example.com', password: secret } });
      id = res.body.id;
      const self = await fx.userToken(id);
      await fx.call('PUT', `/users/${id}/password`, { body: { password: `${secret}-2`, old_password: secret }, token: self });
      await fx.call('PUT', `/users/${id}/password`, { body: { password: `${secret}-3`, old_password: `${secret}-wrong` }, token: self });
      await fx.call('POST', '/users', { body: { email: 'logs@example.com', password: secret } });
      await fx.call('POST', '/users', { body: { email: 'logs2@example.com', password: 'x' } });
      await fx.call('POST', '/users', { body: `{"email":"logs3@example.com","password":"${secret}",` });
    });
    expect(lines.filter((l) => l.message === 'request').length).toBeGreaterThanOrEqual(6);
    const { runtime } = fx.svc.stack;
    const item = await runtime.db.send(new GetCommand({ TableName: runtime.config.tableName, Key: keys.user(id), ConsistentRead: true }));
    const hash = String(item.Item?.password_hash);
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(raw).not.toContain(secret);
    expect(raw).not.toContain('argon2');
    expect(raw).not.toContain(hash.split('$').pop()!);
  });

  it('no OTP secret or otpauth URI reaches a log line when an authenticator is enrolled, replaced or removed', async () => {
    const password = 'Otp-logs-never-5512-xyz';
    let user!: Awaited<ReturnType<typeof fx.createUser>>;
    let self = '';
    await captureStdout(async () => {
      user = await fx.createUser({ email: `otp-logs-${Date.now()}@example.com`, password });
      self = await fx.userToken(user.id);
    });
    const enrolled: { secret: string; uri: string }[] = [];
    const { raw, lines } = await captureLogLines(async () => {
      for (let i = 0; i < 2; i++) {
        const res = await fx.call('POST', `/users/${user.id}/otp`, { token: self, body: { password } });
        expect(res.status).toBe(201);
        enrolled.push({ secret: res.body.secret, uri: res.body.otpauth_uri });
      }
      expect((await fx.call('DELETE', `/users/${user.id}/otp`)).status).toBe(204);
      await fx.call('POST', `/users/${user.id}/otp`, { body: '{"x":' });
    });
    expect(lines.filter((l) => l.message === 'request').length).toBeGreaterThanOrEqual(4);
    for (const { secret, uri } of enrolled) {
      expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
      expect(raw).not.toContain(secret);
      expect(uri).toMatch(/^otpauth:\/\/totp\//);
      expect(raw).not.toContain(uri);
    }
    expect(raw).not.toContain('otpauth');
    expect(raw).not.toContain(password);
  });
});
