import { showConsent, submitConsent } from '#shared/browser/consent-page.ts';
import { missingInteraction } from '#shared/browser/login-page.ts';
import { ConsentFormBody, InteractionQuery } from '#shared/browser/page-forms.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { eventOrigin } from '#shared/records/event-record.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';
import { browserDeps } from '#shared/wiring/pages.ts';

/** GET, POST /consent (docs/contract.md §5, §7.4; docs/browser-flows.md "Consent"): the hosted consent page. */
export const handler = httpHandler(
  {
    page: HOSTED_PAGE,
    query: InteractionQuery,
    body: ConsentFormBody,
    responses: { 200: html(), 303: redirect('To the login page, or back to `/authorize/resume` or `/device/resume` once decided') },
  },
  async (req) => {
    const interactionId = req.query.interaction;
    if (!interactionId) return missingInteraction();
    const deps = browserDeps(req.runtime);
    const request = { interactionId, headers: req.headers, origin: eventOrigin(req.requestId, req.sourceIp, req.headers['user-agent']) };
    return req.route.method === 'GET' ? showConsent(request, deps) : submitConsent(request, req.body, deps);
  },
);
