import { browserDeps } from '../../shared/browser/browser-deps.ts';
import { logout } from '../../shared/browser/logout-page.ts';
import { LogoutParams } from '../../shared/browser/page-forms.ts';
import { HOSTED_PAGE } from '../../shared/html/hosted-page.ts';
import { httpHandler } from '../../shared/http/table-handler.ts';

/**
 * GET, POST /logout (API.md §5, OIDC RP-Initiated Logout 1.0; docs/browser-flows.md "Logout").
 * A POST reads its form body over the query (the confirmation form posts back to the same URL).
 */
export const handler = httpHandler({ page: HOSTED_PAGE, query: LogoutParams, body: LogoutParams }, async (req) => {
  const method = req.route.method === 'POST' ? 'POST' : 'GET';
  const params = method === 'POST' ? { ...req.query, ...req.body } : req.query;
  return logout({ method, params, headers: req.headers }, browserDeps(req.runtime));
});
