import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailMessage, EmailSender } from '#shared/email/email-sender.ts';
import { isAppError } from '#shared/errors.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { ticketsRepository } from '#shared/store/sessions/tickets-repository.ts';
import { usersRepository } from '#shared/store/users/users-repository.ts';
import type { RegisterInput } from '#shared/users/register-body.ts';
import { type RegisterDeps, registerUser } from '#shared/users/register-user.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { type SignupService, startSignupService } from '../support/oauth/signup.ts';

/**
 * registerUser's failure paths against DynamoDB Local (docs/users.md "Registration and email"):
 * no email sender → 501 before any write; a mail that cannot be handed over → the user is removed
 * again, so the same address can register on the retry.
 */
let s: SignupService;
let svc: SignupService['svc'];
let clientId: string;
beforeAll(async () => {
  s = await startSignupService();
  svc = s.svc;
  clientId = s.publicClientId;
});
afterAll(async () => svc?.stop());

const input = (email: string): RegisterInput => ({ client_id: clientId, email, password: 'correct horse battery staple 7' });
function deps(email: EmailSender | undefined): RegisterDeps {
  const { runtime } = svc.stack;
  const { db, config, now } = runtime;
  return {
    oauth: oauthDeps(runtime),
    users: usersRepository(db, config.tableName, now),
    tickets: ticketsRepository(db, config.tableName, now),
    email,
    issuer: config.issuer,
  };
}
const users = () => s.users();

describe('registerUser', () => {
  it('no email sender: 501 and no user', async () => {
    const err = await registerUser({}, input('nosender@example.com'), deps(undefined)).catch((e: unknown) => e);
    expect(isAppError(err) && [err.status, err.code]).toEqual([501, 'not_implemented']);
    expect(await users().findIdByLogin(DEFAULT_TENANT_ID, 'email', 'nosender@example.com')).toBeUndefined();
  });

  it('a mail that cannot be sent: the error goes back, the user is gone, and a retry registers the address', async () => {
    const failing: EmailSender = {
      send: async () => {
        throw Object.assign(new Error('SES down'), { status: 503 });
      },
    };
    await expect(registerUser({}, input('retry@example.com'), deps(failing))).rejects.toThrow('SES down');
    expect(await users().findIdByLogin(DEFAULT_TENANT_ID, 'email', 'retry@example.com')).toBeUndefined();
    const sent: EmailMessage[] = [];
    const user = await registerUser({}, input('retry@example.com'), deps({ send: async (m) => void sent.push(m) }));
    expect(user.email_verified).toBe(false);
    expect(sent.map((m) => m.to)).toEqual(['retry@example.com']);
    expect(sent[0]!.text).toMatch(new RegExp(`${svc.url}/tickets/[A-Za-z0-9_-]{43}`));
  });
});
