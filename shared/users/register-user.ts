import { hashPassword } from '../crypto/password-hash.ts';
import type { EmailSender } from '../email/email-sender.ts';
import { badRequest, notImplemented } from '../errors.ts';
import { authenticateClient } from '../oauth/authenticate-client.ts';
import type { OAuthDeps } from '../oauth/oauth-deps.ts';
import { type EventOrigin, newEvent } from '../records/event-record.ts';
import { type USER_STORAGE_ONLY, USER_VIEW_FIELDS, type UserRecord } from '../records/user-record.ts';
import type { TicketsRepository } from '../store/sessions/tickets-repository.ts';
import type { UsersRepository } from '../store/users/users-repository.ts';
import { passwordProblem } from './password-rules.ts';
import type { RegisterInput } from './register-body.ts';
import { verificationEmail } from './verification-email.ts';

/** docs/contract.md §6 tickets: an email-verification link lives 5 days (432000 s), as management tickets by default. */
export const VERIFICATION_TICKET_TTL_SECONDS = 432_000;

export interface RegisterDeps {
  oauth: Pick<OAuthDeps, 'findClient' | 'now' | 'clientAssertions' | 'events'>;
  users: Pick<UsersRepository, 'create' | 'delete'>;
  tickets: Pick<TicketsRepository, 'create'>;
  /** Undefined when the stage sends no email: registration is then refused (501) before any write. */
  email: EmailSender | undefined;
  /** `{base_url}`: the verification link is `{base_url}/tickets/{ticket}`. */
  issuer: string;
}

/**
 * The User as a caller sees it: the fields of USER_VIEW_FIELDS, as the management API shows it (an
 * allow-list: a deny-list here leaked `otp_enrolled` the day it was added).
 */
export function publicUser(user: UserRecord): Omit<UserRecord, (typeof USER_STORAGE_ONLY)[number]> {
  const out: Record<string, unknown> = {};
  for (const a of USER_VIEW_FIELDS) if (user[a] !== undefined) out[a] = user[a];
  return out as Omit<UserRecord, (typeof USER_STORAGE_ONLY)[number]>;
}

/**
 * POST /identity/v1/users/register (docs/contract.md §6, §7.5, §7.6; docs/users.md "Registration and
 * email"): self-service sign-up. The client authenticates as at `/token` (a public client sends
 * `client_id` alone); the user is created in the client's tenant, unverified, with the password's
 * argon2id hash; an email-verification ticket is stored and its link mailed. If the mail cannot be
 * handed over, the user is deleted again and the error returned, so the caller can simply retry
 * (no account stuck without its link). What a registering client may set: register-body.ts.
 *
 * A registration is a user created by a client: its event (`management.created`, the client as
 * actor, docs/events.md "Management writes") is one separate write once the link is mailed, as
 * only then is the user there to stay; it names the fields sent, never their values.
 */
export async function registerUser(
  headers: Record<string, string | undefined>,
  input: RegisterInput,
  deps: RegisterDeps,
  origin: EventOrigin = {},
): Promise<ReturnType<typeof publicUser>> {
  const { client } = await authenticateClient(headers, input, deps.oauth, '/users/register');
  if (!deps.email) throw notImplemented('Registration needs an email sender, and this stage has none configured.');
  const { client_id: _id, client_secret: _secret, client_assertion: _a, client_assertion_type: _t, password, ...profile } = input;
  const problem = passwordProblem(password, profile);
  if (problem) throw badRequest(`body.password: ${problem}`);
  const user = await deps.users.create(
    { ...profile, tenant_id: client.tenant_id, email_verified: false, phone_verified: false, password_hash: await hashPassword(password) },
    client.id,
  );
  try {
    const { value } = await deps.tickets.create({
      kind: 'email_verification',
      userId: user.id,
      tenantId: user.tenant_id,
      email: user.email,
      clientId: client.id,
      ttlSeconds: VERIFICATION_TICKET_TTL_SECONDS,
    });
    await deps.email.send(verificationEmail(user.email!, `${deps.issuer}/tickets/${value}`, VERIFICATION_TICKET_TTL_SECONDS / 86_400));
  } catch (err) {
    await deps.users.delete(user.id).catch(() => undefined); // the original error is the one to report
    throw err;
  }
  await deps.oauth.events.record(
    newEvent('management.created', deps.oauth.now(), origin, {
      tenant_id: user.tenant_id,
      client_id: client.id,
      user_id: user.id,
      actor: { sub: client.id, client_id: client.id },
      target: { type: 'user', id: user.id },
      changed_fields: [...Object.keys(profile), 'password'].sort(),
      details: { route: 'POST /identity/v1/users/register' },
    }),
  );
  return publicUser(user);
}
