import { missingInteraction, showLogin, submitLogin } from '#shared/browser/login-page.ts';
import { InteractionQuery, LoginFormBody } from '#shared/browser/page-forms.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';
import { browserDeps } from '#shared/wiring/pages.ts';

/** GET, POST /login (docs/contract.md §5, §7.4; docs/browser-flows.md "Login"): the hosted login page. */
export const handler = httpHandler(
  {
    page: HOSTED_PAGE,
    query: InteractionQuery,
    body: LoginFormBody,
    responses: { 200: html(), 303: redirect('Logged in: on to the consent page or back to the flow') },
  },
  async (req) => {
    const interactionId = req.query.interaction;
    if (!interactionId) return missingInteraction();
    const deps = browserDeps(req.runtime);
    const request = { interactionId, headers: req.headers };
    return req.route.method === 'GET' ? showLogin(request, deps) : submitLogin(request, req.body, deps);
  },
);
