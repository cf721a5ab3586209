import type { HttpResponse } from '../../http/response.ts';
import type { EventOrigin } from '../../records/event-record.ts';
import { formToken, seeOther, withCookie } from '../browser-responses.ts';
import type { AccountContext } from './account-context.ts';
import type { AccountDeps } from './account-deps.ts';
import { addPasskeyControl } from './account-passkey-control.ts';
import { type AccountView, accountPage, type GrantView } from './account-view.ts';

// What every part of the account page shares: the session it serves, the way through the hosted
// sign-in, and the page itself.

export const ACCOUNT_PATH = '/account';

export interface AccountRequest {
  headers: Record<string, string | undefined>;
  /** Where the request came from: the security events of its changes carry it (docs/events.md). */
  origin?: EventOrigin;
  query: { tenant?: string | undefined; done?: string | undefined };
}

/** The confirmations `?done=` may ask for: fixed texts, so nothing of the URL reaches the page. */
export const NOTICES: Readonly<Record<string, string>> = {
  password: 'Password changed.',
  'passkey-removed': 'Passkey removed.',
  'passkey-added': 'Passkey added.',
  'passkey-ready': 'Signed in again: you can add a passkey now.',
  withdrawn: 'Access withdrawn.',
};

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
  const add = await addPasskeyControl(ctx, user, passkeys, token, deps);
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
    addPasskey: add.markup,
    ...(add.script ? { script: add.script } : {}),
    ...extra,
  });
  return withCookie(page, ctx.binding.setCookie);
}
