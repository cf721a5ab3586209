import type { HttpResponse } from '../../http/response.ts';
import { unverifiedRequestPage } from './authorization-response.ts';
import type { AuthorizeDeps } from './authorize-deps.ts';
import { AuthorizeError, type AuthorizeRequest } from './authorize-request.ts';
import { issueAuthorization } from './issue-authorization.ts';
import { isRegisteredRedirectUri } from './redirect-uri.ts';
import { answerErrorsToClient, targetResource } from './start-authorization.ts';

const page = (message: string) => unverifiedRequestPage(message);

/**
 * GET /authorize/resume?interaction= (flows-plan.md "The flow", step 4): where login and consent
 * send the browser back. The interaction must be an `authorize` one the pages finished (a login
 * and a decision), and the request's session cookie must be the session that logged in: an
 * interaction id carried to another browser is refused (it is a bearer secret, but the session
 * binds it to the browser that signed in). Only then is it consumed, once (one conditional
 * delete: of two concurrent resumes one wins). The client, its redirect URI and, for the
 * management API, its link to it are checked again (each may have changed during the login).
 * Then the code or tokens, or `access_denied`.
 * Anything wrong before the redirect URI is trusted again is a page, never a redirect.
 */
export async function resumeAuthorization(interactionId: string, cookie: string | undefined, deps: AuthorizeDeps): Promise<HttpResponse> {
  const interaction = await deps.interactions.readInteraction(interactionId);
  if (interaction?.kind !== 'authorize') return page('The sign-in has expired or was already completed.');
  if (!interaction.decision || !interaction.session_id || !interaction.user_id) return page('The sign-in is not finished.');
  const session = cookie ? await deps.sessions.findSession(cookie) : undefined;
  if (!session || session.id !== interaction.session_id) return page('The sign-in was started in another browser.');
  const consumed = await deps.interactions.consumeInteraction(interactionId);
  if (!consumed) return page('The sign-in has expired or was already completed.');

  const request = (consumed.payload as { request: AuthorizeRequest }).request;
  const client = await deps.oauth.findClient(consumed.client_id);
  if (!client || !isRegisteredRedirectUri(client.redirect_uris, request.redirectUri)) {
    return page('The application of this sign-in is no longer registered for this address.');
  }
  const target = { redirectUri: request.redirectUri, responseMode: request.responseMode, state: request.state };
  return answerErrorsToClient(target, deps, async () => {
    if (consumed.decision !== 'allow') throw new AuthorizeError('access_denied', 'The user denied the request.');
    // The client may have lost its link to the management API during the login; other Resources
    // need no link, so they are not read again.
    if (request.audience === deps.oauth.managementAudience) await targetResource(client, request, deps);
    return issueAuthorization(
      {
        client,
        request,
        userId: consumed.user_id!,
        sessionId: session.id,
        authTime: consumed.auth_time ?? session.auth_time,
        amr: consumed.amr ?? session.amr,
        scopes: consumed.granted_scopes ?? consumed.scopes,
      },
      deps,
    );
  });
}
