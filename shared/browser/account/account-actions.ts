import { isAppError } from '../../errors.ts';
import { errorPage } from '../../html/page.ts';
import type { HttpResponse } from '../../http/response.ts';
import { checkCurrentPassword } from '../../users/current-password.ts';
import { seeOther, withCookie } from '../browser-responses.ts';
import { clearedSessionCookie, sessionCookie } from '../cookies.ts';
import { type AccountContext, isRecentSignIn } from './account-context.ts';
import type { AccountDeps } from './account-deps.ts';
import { accountEvent } from './account-events.ts';
import type { AccountForm } from './account-forms.ts';
import { ACCOUNT_PATH, renderAccount, throughSignIn } from './account-session.ts';
import { signedOutPage } from './account-view.ts';

// The account page's actions (docs/passkeys.md "The account page"). Each runs only after the
// page checked the session and the CSRF token (account-page.ts `submitAccount`), checks its own
// fields' type and size before any other work, and ends in a 303 back to the page (POST, then
// redirect, then GET: a reload repeats nothing) or the page with the refusal in its section.

/** Longest value a form field may have before it is looked at (a password's 128 code points fit). */
const MAX_FIELD = 1024;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.length <= MAX_FIELD ? v : undefined);
/** An id of ours (a UUID) as a form sent it; anything else names nothing. */
const idOf = (v: unknown): string | undefined => (typeof v === 'string' && /^[0-9a-f-]{36}$/i.test(v) ? v : undefined);

/** 303 back to the page with a confirmation (account-session.ts `NOTICES`). */
export const done = (deps: AccountDeps, what: string, setCookie?: string) =>
  seeOther(`${deps.issuer}${ACCOUNT_PATH}?done=${encodeURIComponent(what)}`, setCookie);

/**
 * A credential of the account changes only after a recent sign-in (account-context.ts
 * `RECENT_SIGN_IN_SECONDS`): an open tab left behind, or a stolen session cookie, must not add a
 * passkey an attacker keeps. Older: the sign-in again (`prompt=login`), then back to the page.
 */
export async function recentOrSignIn(ctx: AccountContext, deps: AccountDeps): Promise<HttpResponse | undefined> {
  if (isRecentSignIn(ctx.session, deps.now())) return undefined;
  const user = await deps.getUser(ctx.session.user_id);
  const loginHint = user?.username ?? user?.email;
  return throughSignIn(deps, ctx.session.tenant_id, { prompt: ['login'], ...(loginHint ? { loginHint } : {}) });
}

/**
 * Change password: the current one is required and checked like a login attempt (counted
 * towards the lockout first, docs/users.md "Brute force"; a locked account is 429 with
 * `Retry-After`), the new one follows docs/contract.md §7.2. The cheap checks (shape, the two new
 * values equal, the rules) come first and count nothing. The new hash sets `tokens_revoked_at`, so
 * every earlier token and session ends, this one too: the browser gets a new session (`amr`
 * `pwd`, the password was just proved) so the person stays signed in here.
 */
export async function changePassword(ctx: AccountContext, form: AccountForm, deps: AccountDeps): Promise<HttpResponse> {
  const refuse = (message: string, status = 400, headers?: Record<string, string>) =>
    renderAccount(ctx, deps, { status, error: { section: 'password', message }, ...(headers ? { headers } : {}) });
  const current = text(form.current_password);
  const next = text(form.new_password);
  const confirm = text(form.confirm_password);
  if (!current || !next || confirm === undefined) return refuse('Enter your current password and the new one twice.');
  if (next !== confirm) return refuse('The two new passwords are not the same.');
  const user = await deps.getUser(ctx.session.user_id);
  if (!user) return throughSignIn(deps, ctx.session.tenant_id);
  if (user.password_hash === undefined) return refuse('Your account has no password to change.');
  // Loaded on first use: the common-password list is most of the page's code, and only this action needs it.
  const { passwordProblem } = await import('../../users/password-rules.ts');
  const problem = passwordProblem(next, { email: user.email, username: user.username });
  if (problem) return refuse(`The new password ${problem}`);
  const checked = await checkCurrentPassword(deps, user, current);
  if (!checked.ok && checked.locked) {
    const minutes = Math.max(1, Math.ceil(checked.locked.retryAfterSeconds / 60));
    return refuse(`Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, 429, {
      'Retry-After': String(checked.locked.retryAfterSeconds),
    });
  }
  if (!checked.ok) return refuse('The current password is not correct.');
  const at = deps.now();
  try {
    await deps.users.setPasswordHash(user.id, await deps.hashPassword(next), at, {
      actor: user.id,
      events: [accountEvent(ctx, deps, 'password.changed')],
    });
  } catch (err) {
    if (isAppError(err) && err.status === 404) return throughSignIn(deps, ctx.session.tenant_id); // deleted meanwhile
    throw err;
  }
  deps.forget(user.id);
  const [{ value }] = await Promise.all([
    deps.sessions.createSession({ userId: user.id, tenantId: user.tenant_id, authTime: Math.floor(at.getTime() / 1000), amr: ['pwd'] }),
    deps.sessions.endSession(ctx.cookie),
  ]);
  return done(deps, 'password', sessionCookie(value, deps.secureCookies));
}

/**
 * Remove a passkey of the session's user (a recent sign-in required). Removing the last one is
 * allowed under every policy: under `required` the next sign-in asks for a new one.
 */
export async function removePasskey(ctx: AccountContext, form: AccountForm, deps: AccountDeps): Promise<HttpResponse> {
  const passkeyId = idOf(form.passkey);
  if (!passkeyId) return renderAccount(ctx, deps, { status: 400, error: { section: 'passkeys', message: 'Choose a passkey to remove.' } });
  const again = await recentOrSignIn(ctx, deps);
  if (again) return again;
  const removed = accountEvent(ctx, deps, 'authenticator.removed', {
    target: { type: 'authenticator', id: passkeyId },
    details: { kind: 'passkey' },
  });
  if (!(await deps.passkeys.remove(ctx.session.user_id, passkeyId, [removed]))) {
    return renderAccount(ctx, deps, {
      status: 400,
      error: { section: 'passkeys', message: 'That passkey is not on your account any more.' },
    });
  }
  return done(deps, 'passkey-removed');
}

/** Withdraw a grant: the consent is deleted and that client's refresh tokens of the user end (consents-repository.ts). */
export async function withdrawGrant(ctx: AccountContext, form: AccountForm, deps: AccountDeps): Promise<HttpResponse> {
  const grantId = idOf(form.grant);
  const withdrawn = grantId
    ? await deps.grants.deleteConsent(ctx.session.user_id, grantId, (grant) => [
        accountEvent(ctx, deps, 'consent.withdrawn', {
          client_id: grant.client_id,
          target: { type: 'grant', id: grant.id },
          details: { scopes: grant.scopes, ...(grant.resource_id ? { resource_id: grant.resource_id } : {}) },
        }),
      ])
    : undefined;
  if (!withdrawn) {
    return renderAccount(ctx, deps, {
      status: 400,
      error: { section: 'applications', message: 'That application has no access to withdraw any more.' },
    });
  }
  return done(deps, 'withdrawn');
}

/**
 * Sign out everywhere: every session of the user ends (this browser's too) and the cookie is
 * cleared. Applications keep their tokens: withdrawing an application's access (above) or a
 * password change ends those.
 */
export async function signOutEverywhere(ctx: AccountContext, deps: AccountDeps): Promise<HttpResponse> {
  await deps.sessions.endUserSessions(ctx.session.user_id);
  return withCookie(signedOutPage(), clearedSessionCookie(deps.secureCookies));
}

/** A form the page did not make: nothing is changed. */
export const unknownAction = (): HttpResponse =>
  errorPage(400, 'Unknown action', 'This form asked for something the account page does not do.');
