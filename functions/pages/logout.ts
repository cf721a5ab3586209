import { logout } from '#shared/browser/logout-page.ts';
import { LogoutParams } from '#shared/browser/page-forms.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';
import { browserDeps } from '#shared/wiring/pages.ts';

/**
 * GET, POST /logout (docs/contract.md §5, OIDC RP-Initiated Logout 1.0; docs/browser-flows.md "Logout").
 * A POST reads its form body over the query (the confirmation form posts back to the same URL).
 */
export const handler = httpHandler(
  {
    page: HOSTED_PAGE,
    query: LogoutParams,
    body: LogoutParams,
    responses: { 200: html(), 303: redirect('To the client’s `post_logout_redirect_uri`') },
  },
  async (req) => {
    const method = req.route.method === 'POST' ? 'POST' : 'GET';
    const params = method === 'POST' ? { ...req.query, ...req.body } : req.query;
    return logout({ method, params, headers: req.headers }, browserDeps(req.runtime));
  },
);
