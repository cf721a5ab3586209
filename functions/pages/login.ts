import { missingInteraction, showLogin, submitLogin } from '#shared/browser/login-page.ts';
import { LoginFormBody, LoginQuery } from '#shared/browser/page-forms.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { eventOrigin } from '#shared/records/event-record.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';
import { browserDeps } from '#shared/wiring/pages.ts';

/** GET, POST /login (docs/contract.md §5, §7.4; docs/browser-flows.md "Login"): the hosted login page. */
export const handler = httpHandler(
  {
    page: HOSTED_PAGE,
    query: LoginQuery,
    body: LoginFormBody,
    responses: { 200: html(), 303: redirect('Logged in: on to the consent page or back to the flow; or to an identity provider') },
  },
  async (req) => {
    const { interaction: interactionId, connection, csrf_token } = req.query;
    if (!interactionId) return missingInteraction();
    const deps = browserDeps(req.runtime);
    const origin = eventOrigin(req.requestId, req.sourceIp, req.headers['user-agent']);
    const request = { interactionId, headers: req.headers, origin };
    if (req.route.method === 'POST') return submitLogin(request, req.body, deps);
    // A provider link of the login page (docs/federation.md "Federated login").
    return showLogin(connection === undefined ? request : { ...request, connection: { name: connection, csrfToken: csrf_token } }, deps);
  },
);
