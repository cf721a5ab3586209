import type { HttpResponse } from '../../http/response.ts';
import type { SessionRecord } from '../../store/sessions/sessions-repository.ts';
import { formToken, seeOther, withCookie } from '../browser-responses.ts';
import type { AccountDeps } from './account-deps.ts';
import { type AccountView, accountPage, type GrantView } from './account-view.ts';

// What every part of the account page shares: the session it serves, the way through the hosted
// sign-in, and the page itself.

export const ACCOUNT_PATH = '/account';

/**
 * How long a sign-in counts as recent for changing the credentials of the account (adding or
 * removing a passkey): 10 minutes, as Keycloak's account console asks again for an older one
 * (docs/passkeys.md "The account page").
 */
export const RECENT_SIGN_IN_SECONDS = 600;

export interface AccountRequest {
  headers: Record<string, string | undefined>;
  query: { tenant?: string | undefined; done?: string | undefined };
}

/** The confirmations `?done=` may ask for: fixed texts, so nothing of the URL reaches the page. */
export const NOTICES: Readonly<Record<string, string>> = {
  password: 'Password changed.',
  'passkey-removed': 'Passkey removed.',
  'passkey-added': 'Passkey added.',
  withdrawn: 'Access withdrawn.',
};

export interface AccountContext {
  session: SessionRecord;
  /** The request's session cookie value. */
  cookie: string;
  /** The browser's CSRF binding (its `csrf` cookie). */
  binding: { value: string; setCookie?: string };
}

const nowSeconds = (deps: AccountDeps) => Math.floor(deps.now().getTime() / 1000);

export const isRecentSignIn = (session: SessionRecord, deps: AccountDeps) => nowSeconds(deps) - session.auth_time <= RECENT_SIGN_IN_SECONDS;

/**
 * Through the hosted sign-in and back: an interaction of kind `account` (no client: `client_id`
 * '') whose `return_to` is this page; `/consent` sees the kind, asks nothing and comes back here.
 * `prompt=login` when a sign-in is there but too old for what was asked.
 */
export async function throughSignIn(deps: AccountDeps, tenantId: string, o: { prompt?: string[]; loginHint?: string } = {}) {
  const interaction = await deps.interactions.createInteraction({
    kind: 'account',
    tenant_id: tenantId,
    client_id: '',
    scopes: [],
    prompt: o.prompt ?? [],
    ...(o.loginHint ? { login_hint: o.loginHint } : {}),
    payload: {},
    return_to: ACCOUNT_PATH,
  });
  return seeOther(`${deps.issuer}/login?interaction=${encodeURIComponent(interaction.id)}`);
}

/** The page's CSRF token: bound to the session and to the browser's `csrf` cookie. */
const accountToken = (deps: AccountDeps, ctx: AccountContext) => formToken(deps.csrfKey, 'account', ctx.session.id, ctx.binding.value);

/** The whole page for the session's user, with a notice or a section's error. */
export async function renderAccount(
  ctx: AccountContext,
  deps: AccountDeps,
  extra: Pick<AccountView, 'notice' | 'error' | 'status' | 'headers'> = {},
): Promise<HttpResponse> {
  const userId = ctx.session.user_id;
  const [user, passkeys, consents, token] = await Promise.all([
    deps.getUser(userId),
    deps.passkeys.list(userId),
    deps.grants.listConsents(userId),
    accountToken(deps, ctx),
  ]);
  if (!user) return throughSignIn(deps, ctx.session.tenant_id);
  const grants = await Promise.all(
    consents.map(async (grant): Promise<GrantView> => {
      const [client, resource] = await Promise.all([
        deps.getClient(grant.client_id),
        grant.resource_id ? deps.getResource(grant.resource_id) : undefined,
      ]);
      return { grant, clientName: client?.client_name ?? 'An application that no longer exists', resourceName: resource?.resource_name };
    }),
  );
  const page = accountPage({
    user,
    passkeys,
    grants,
    csrfToken: token,
    canAddPasskey: false,
    ...extra,
  });
  return withCookie(page, ctx.binding.setCookie);
}
