import { AccountFormBody, AccountQuery } from '#shared/browser/account/account-forms.ts';
import { showAccount, submitAccount } from '#shared/browser/account/account-page.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { eventOrigin } from '#shared/records/event-record.ts';
import { accountDeps } from '#shared/wiring/account.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';

/** GET, POST /account (docs/passkeys.md "The account page"): the self-service account page. */
export const handler = httpHandler(
  {
    page: HOSTED_PAGE,
    query: AccountQuery,
    body: AccountFormBody,
    responses: {
      200: html(),
      303: redirect('Signed out: to the login page and back; after an action: back to `/account`'),
    },
  },
  async (req) => {
    const deps = accountDeps(req.runtime);
    const request = { headers: req.headers, query: req.query, origin: eventOrigin(req.requestId, req.sourceIp, req.headers['user-agent']) };
    return req.route.method === 'GET' ? showAccount(request, deps) : submitAccount(request, req.body, deps);
  },
);
