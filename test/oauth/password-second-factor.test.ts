import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, hotp, totp, totpStep } from '#shared/crypto/totp.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { INVALID_CREDENTIALS, loginClient, storedItem, tokenRequest } from '../support/oauth/login-grants.ts';
import { userToken } from '../support/oauth/user-tokens.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';

/**
 * The password grant of a user with a TOTP authenticator (docs/users.md "Second factor"): the
 * hosted login asks for the code after the password (docs/contract.md §7.4), so the password grant must
 * not be a way round it. The code goes in the same request as `otp`;
 * without it the answer is invalid_grant naming `body.otp`, and only once the password was right.
 */
let svc: TestService;
let offsetMs = 0;
let auth: string;
let clientId: string;
let config: client.Configuration;
let call: ReturnType<typeof managementCaller>;
const serviceNow = () => new Date(Date.now() + offsetMs);
const PASSWORD = 'correct horse battery staple 7';

beforeAll(async () => {
  svc = await startTestService({ now: serviceNow });
  ({ clientId, auth, config } = await loginClient(svc, ['password']));
  call = managementCaller(svc.url, await svc.managementToken());
});
afterAll(async () => svc?.stop());

const token = (params: Record<string, string>) => tokenRequest(svc, auth, 'password', params);
const OTP_REQUIRED = {
  code: 'invalid_grant',
  message: 'body.otp: is required: the user has an authenticator (a 6-digit TOTP code).',
};

/** A user made through the Users API, then enrolled through it (its secret, shown once). */
async function enrolledUser() {
  const username = `mfa_${Math.random().toString(36).slice(2, 10)}`;
  const created = await call('POST', '/users', { body: { username, password: PASSWORD } });
  expect(created.status).toBe(201);
  const id: string = created.body.id;
  expect((await storedItem(svc, keys.user(id)))?.otp_enrolled).toBe(false);
  // As the user (its own token and password): the API shows a secret to nobody else.
  const own = await userToken(svc.stack.runtime, created.body, { clientId: svc.clientId, aud: svc.managementAudience, scope: '' });
  const enrolled = await call('POST', `/users/${id}/otp`, { token: own, body: { password: PASSWORD } });
  expect(enrolled.status).toBe(201);
  expect((await storedItem(svc, keys.user(id)))?.otp_enrolled).toBe(true);
  return { id, username, secret: base32Decode(enrolled.body.secret)! };
}

const wrongCode = (secret: Buffer) => {
  const valid = new Set([-1, 0, 1].map((d) => hotp(secret, totpStep(serviceNow()) + d)));
  return ['000000', '111111', '222222'].find((c) => !valid.has(c))!;
};

describe('password grant of a user with an authenticator', () => {
  it('asks for the code; the right code in the same request gives tokens (openid-client, jose), once', async () => {
    const { id, username, secret } = await enrolledUser();
    const without = await token({ username, password: PASSWORD });
    expect(without.status).toBe(400);
    expect(without.body).toMatchObject({ ...OTP_REQUIRED, error: 'invalid_grant' });
    expect(without.body.access_token).toBeUndefined();

    const code = totp(secret, serviceNow());
    const tokens = await client.genericGrantRequest(config, 'password', { username, password: PASSWORD, otp: code, scope: 'openid' });
    const jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
    expect((await jwtVerify(tokens.access_token, jwks, { issuer: svc.url, typ: 'at+jwt' })).payload).toMatchObject({
      sub: id,
      client_id: clientId,
    });
    expect((await storedItem(svc, keys.userOtp(id)))?.last_step).toBe(totpStep(serviceNow()));
    // RFC 6238 §5.2: the same code again is refused, with the password right.
    expect(await token({ username, password: PASSWORD, otp: code })).toMatchObject({ status: 400, body: INVALID_CREDENTIALS });
  });

  it('a wrong code is invalid_grant and counts against the authenticator; a wrong password never mentions the code', async () => {
    const { id, username, secret } = await enrolledUser();
    expect(await token({ username, password: PASSWORD, otp: wrongCode(secret) })).toMatchObject({ status: 400, body: INVALID_CREDENTIALS });
    expect((await storedItem(svc, keys.userOtp(id)))?.failures).toBe(1);
    // Whoever lacks the password learns nothing about the authenticator.
    expect(await token({ username, password: 'not the password at all' })).toMatchObject({ status: 400, body: INVALID_CREDENTIALS });
    expect((await token({ username, password: PASSWORD, otp: '12345' })).body).toMatchObject({
      code: 'invalid_request',
      message: 'body.otp: must be a 6-digit code',
    });
  });

  it('removing the authenticator (DELETE /users/{id}/otp) makes the password alone enough again', async () => {
    const { id, username } = await enrolledUser();
    expect((await call('DELETE', `/users/${id}/otp`)).status).toBe(204);
    expect((await storedItem(svc, keys.user(id)))?.otp_enrolled).toBe(false);
    expect((await token({ username, password: PASSWORD })).status).toBe(200);
    expect((await call('DELETE', `/users/${id}/otp`)).status).toBe(404);
  });

  it('a user stored before otp_enrolled existed: the authenticator is read, never skipped', async () => {
    const { id, username, secret } = await enrolledUser();
    const { runtime } = svc.stack;
    await runtime.db.send(
      new UpdateCommand({ TableName: runtime.config.tableName, Key: keys.user(id), UpdateExpression: 'REMOVE otp_enrolled' }),
    );
    offsetMs += 2_000; // past the 1 s user cache
    expect((await token({ username, password: PASSWORD })).body).toMatchObject(OTP_REQUIRED);
    expect((await token({ username, password: PASSWORD, otp: totp(secret, serviceNow()) })).status).toBe(200);
  });

  it('a disabled authenticator (100 failures) refuses every code: no fall back to the password alone', async () => {
    const { id, username, secret } = await enrolledUser();
    const { runtime } = svc.stack;
    await runtime.db.send(
      new UpdateCommand({
        TableName: runtime.config.tableName,
        Key: keys.userOtp(id),
        UpdateExpression: 'SET failures = :n',
        ExpressionAttributeValues: { ':n': runtime.config.login.otpMaxFailures },
      }),
    );
    expect(await token({ username, password: PASSWORD, otp: totp(secret, serviceNow()) })).toMatchObject({
      status: 400,
      body: INVALID_CREDENTIALS,
    });
    expect((await token({ username, password: PASSWORD })).body).toMatchObject(OTP_REQUIRED);
  });

  it('a user without an authenticator: the password is enough, an otp sent along is ignored', async () => {
    // The user item says there is none, so none is read (refresh-reads.test.ts counts the login's calls).
    const username = `plain_${Math.random().toString(36).slice(2, 10)}`;
    const created = await call('POST', '/users', { body: { username, password: PASSWORD } });
    expect((await storedItem(svc, keys.user(created.body.id)))?.otp_enrolled).toBe(false);
    expect((await token({ username, password: PASSWORD })).status).toBe(200);
    expect((await token({ username, password: PASSWORD, otp: '123456' })).status).toBe(200);
  });
});
