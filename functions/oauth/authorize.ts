import * as v from 'valibot';
import { readCookie, SESSION_COOKIE } from '#shared/browser/cookies.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { oauthHandler } from '#shared/http/oauth-handler.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { startAuthorization } from '#shared/oauth/authorize/start-authorization.ts';
import { authorizeDeps } from '#shared/wiring/authorize.ts';

/**
 * The parameters as sent: each is checked by the use case (authorize-request.ts), because which
 * error a bad one gets depends on whether the client and redirect URI were verified before it
 * (a page before, a redirect after: docs/contract.md §7.4). A repeated parameter arrives as an array.
 */
const Params = v.optional(v.record(v.string(), v.unknown()), {});

/** GET and POST /authorize (docs/contract.md §5; RFC 6749 §3.1: the endpoint supports GET, and POST form bodies). */
export const handler = oauthHandler(
  {
    page: HOSTED_PAGE,
    query: Params,
    body: Params,
    responses: {
      200: html('An error page, or the `form_post` answer'),
      303: redirect('To the login page, or to the client’s redirect URI with the code, tokens or error'),
    },
  },
  async (req) => {
    const params = req.route.method === 'GET' ? req.query : req.body;
    return startAuthorization(params, readCookie(req.headers, SESSION_COOKIE), authorizeDeps(req.runtime));
  },
);
