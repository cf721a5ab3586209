import * as v from 'valibot';
import { readCookie, SESSION_COOKIE } from '#shared/browser/cookies.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { oauthHandler } from '#shared/http/oauth-handler.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { resumeAuthorization } from '#shared/oauth/authorize/resume-authorization.ts';
import { authorizeDeps } from '#shared/wiring/authorize.ts';

/** The interaction id is opaque here: one we never issued is an unknown interaction (a page), not a field error. */
const Query = v.looseObject({ interaction: v.optional(v.string(), '') });

/** GET /authorize/resume?interaction= (flows-plan.md step 4): login and consent done, the code or tokens. */
export const handler = oauthHandler(
  {
    page: HOSTED_PAGE,
    query: Query,
    responses: { 200: html(), 303: redirect('To the client’s redirect URI with the code, tokens or error') },
  },
  async (req) => resumeAuthorization(req.query.interaction, readCookie(req.headers, SESSION_COOKIE), authorizeDeps(req.runtime)),
);
