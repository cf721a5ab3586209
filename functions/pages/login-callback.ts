import { loginCallback } from '#shared/browser/login-callback.ts';
import { CallbackQuery } from '#shared/browser/page-forms.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { eventOrigin } from '#shared/records/event-record.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';
import { browserDeps } from '#shared/wiring/pages.ts';

/** GET /login/callback (docs/contract.md §7.4; docs/federation.md "Federated login"): where identity providers send the browser back. */
export const handler = httpHandler(
  {
    page: HOSTED_PAGE,
    query: CallbackQuery,
    responses: {
      200: html('An error page'),
      303: redirect('Signed in: on to the consent page; or the OAuth error to the client’s redirect URI'),
    },
  },
  async (req) =>
    loginCallback(
      { query: req.query, headers: req.headers, origin: eventOrigin(req.requestId, req.sourceIp, req.headers['user-agent']) },
      browserDeps(req.runtime),
    ),
);
