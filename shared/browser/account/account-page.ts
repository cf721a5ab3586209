import { errorPage } from '../../html/page.ts';
import type { HttpResponse } from '../../http/response.ts';
import { DEFAULT_TENANT_ID } from '../../records/tenant-record.ts';
import { browserBinding, isFormToken } from '../browser-responses.ts';
import { readCookie, SESSION_COOKIE } from '../cookies.ts';
import { changePassword, removePasskey, signOutEverywhere, unknownAction, withdrawGrant } from './account-actions.ts';
import type { AccountContext } from './account-context.ts';
import type { AccountDeps } from './account-deps.ts';
import type { AccountForm } from './account-forms.ts';
import { addPasskey } from './account-passkey-add.ts';
import { type AccountRequest, NOTICES, renderAccount, throughSignIn } from './account-session.ts';

/** The tenant a signed-out browser signs in to: `tenant` when it names one, else the default tenant. */
async function signInTenant(requested: string | undefined, deps: AccountDeps): Promise<string> {
  if (requested && requested !== DEFAULT_TENANT_ID && (await deps.tenantExists(requested))) return requested;
  return DEFAULT_TENANT_ID;
}

async function context(req: AccountRequest, deps: AccountDeps): Promise<AccountContext | undefined> {
  const cookie = readCookie(req.headers, SESSION_COOKIE);
  const session = cookie ? await deps.sessions.findSession(cookie) : undefined;
  if (!session || !cookie) return undefined;
  return { session, cookie, binding: browserBinding(req.headers, deps.secureCookies), origin: req.origin ?? {} };
}

/**
 * GET `/account` (docs/passkeys.md "The account page"): the page of the browser's session; a
 * browser without one goes through the hosted sign-in (303 to `/login`) and comes back.
 */
export async function showAccount(req: AccountRequest, deps: AccountDeps): Promise<HttpResponse> {
  const ctx = await context(req, deps);
  if (!ctx) return throughSignIn(deps, await signInTenant(req.query.tenant, deps));
  // Own members only: `constructor` or `__proto__` name no notice.
  const notice = req.query.done !== undefined && Object.hasOwn(NOTICES, req.query.done) ? NOTICES[req.query.done] : undefined;
  return renderAccount(ctx, deps, notice ? { notice } : {});
}

const formExpired = () => errorPage(400, 'Form expired', 'This form could not be checked. Open your account page again and retry.');

/**
 * POST `/account`: one action per form (`action`). The session must be live and the CSRF token
 * the one of this session in this browser, else a 400 page and nothing changes; without a session
 * the browser signs in first (the action is not carried over: the person chooses it again).
 */
export async function submitAccount(req: AccountRequest, form: AccountForm, deps: AccountDeps): Promise<HttpResponse> {
  const ctx = await context(req, deps);
  if (!ctx) return throughSignIn(deps, await signInTenant(req.query.tenant, deps));
  const valid =
    ctx.binding.setCookie === undefined && (await isFormToken(deps.csrfKey, form.csrf_token, 'account', ctx.session.id, ctx.binding.value));
  if (!valid) return formExpired();
  switch (form.action) {
    case 'change-password':
      return changePassword(ctx, form, deps);
    case 'add-passkey':
      return addPasskey(ctx, form, deps);
    case 'remove-passkey':
      return removePasskey(ctx, form, deps);
    case 'withdraw-grant':
      return withdrawGrant(ctx, form, deps);
    case 'sign-out-everywhere':
      return signOutEverywhere(ctx, deps);
    default:
      return unknownAction();
  }
}
