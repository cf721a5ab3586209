import { none } from './auth-rules.ts';
import type { Route } from './route.ts';

/** The hosted pages (docs/contract.md §5, §7.4): HTML. The device flow's page is with the OAuth routes. */
export const PAGE_ROUTES: readonly Route[] = [
  // The ticket page (docs/users.md "The ticket page"): HTML; decrypt opens the hosted pages' CSRF
  // key and the secret box's data key (an authenticator enrolment seals its secret on the ticket).
  {
    method: 'GET',
    path: '/tickets/{ticket}',
    handler: 'functions/pages/ticket',
    auth: none,
    access: { table: 'readwrite', kms: ['decrypt'] },
  },
  {
    method: 'POST',
    path: '/tickets/{ticket}',
    handler: 'functions/pages/ticket',
    auth: none,
    access: { table: 'readwrite', kms: ['decrypt'] },
  },

  // Hosted login, consent and logout pages (docs/browser-flows.md): HTML.
  // Decrypt opens the hosted pages' CSRF key and the sealed TOTP secrets of the OTP step. POST
  // /login has its own bucket: every password guess of the stage rides on it (the per-user lockout
  // of docs/contract.md §7.3 bounds guesses per account, this bounds them per stage).
  ...(['GET', 'POST'] as const).flatMap((method) =>
    (['login', 'consent', 'logout'] as const).map(
      (page): Route => ({
        method,
        path: `/${page}`,
        handler: `functions/pages/${page}`,
        auth: none,
        access: { table: 'readwrite', kms: ['decrypt'] },
        ...(method === 'POST' && page === 'login' ? { throttle: { rateLimit: 100, burstLimit: 200 } } : {}),
      }),
    ),
  ),
  // The self-service account page (docs/passkeys.md "The account page"): HTML. Decrypt opens the
  // hosted pages' CSRF key.
  ...(['GET', 'POST'] as const).map(
    (method): Route => ({
      method,
      path: '/account',
      handler: 'functions/pages/account',
      auth: none,
      access: { table: 'readwrite', kms: ['decrypt'] },
    }),
  ),
  // Where identity providers send the browser back (docs/federation.md "Federated login"): HTML.
  // Decrypt opens the provider's sealed client secret and the hosted pages' CSRF key.
  {
    method: 'GET',
    path: '/login/callback',
    handler: 'functions/pages/login-callback',
    auth: none,
    access: { table: 'readwrite', kms: ['decrypt'] },
  },
];
