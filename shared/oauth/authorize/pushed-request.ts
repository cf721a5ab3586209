import type { HttpResponse } from '../../http/response.ts';
import { isPushedRequestUri } from '../../records/pushed-request-record.ts';
import { isStorableClientId } from '../authenticate-client.ts';
import { authorizationError, unverifiedRequestPage } from './authorization-response.ts';
import type { AuthorizeDeps } from './authorize-deps.ts';
import { AuthorizeError, redirectTarget, UnverifiedRequestError, verifyClientAndRedirect } from './authorize-request.ts';

/** The pushed request's parameters (with its `client_id`), or the answer that ends the request. */
export type PushedParams = { params: Record<string, unknown> } | { response: HttpResponse };

/**
 * `/authorize?client_id=…&request_uri=…` (RFC 9126 §4; docs/client-authentication.md "Pushed
 * authorization requests (PAR)"): the pushed request is taken once, for the client that pushed
 * it, and its parameters replace the front channel's: every other parameter sent to `/authorize`
 * is ignored, whatever its value. Until the pushed request is found no redirect URI is trusted,
 * so each refusal is the error page; an expired request of this client goes back to its
 * redirect URI (still registered) as `invalid_request_uri` with its `state`.
 */
export async function takePushedRequest(
  params: Record<string, unknown>,
  deps: Pick<AuthorizeDeps, 'oauth' | 'pushedRequests'>,
): Promise<PushedParams> {
  const page = (message: string) => ({ response: unverifiedRequestPage(message) });
  const clientId = params.client_id;
  const requestUri = params.request_uri;
  // RFC 9126 §4: client_id is REQUIRED beside request_uri; each is sent once (RFC 6749 §3.1).
  if (typeof clientId !== 'string' || !isStorableClientId(clientId)) return page('client_id: is required with request_uri, once.');
  if (typeof requestUri !== 'string' || !isPushedRequestUri(requestUri)) return page('request_uri: was not issued by this server.');
  const taken = await deps.pushedRequests.take(requestUri, clientId);
  if (taken.state === 'refused') return page('request_uri: is unknown, was already used, or was pushed by another client.');
  const pushed = { ...taken.request.params, client_id: taken.request.client_id };
  if (taken.state === 'taken') return { params: pushed };
  try {
    const { redirectUri } = await verifyClientAndRedirect(pushed, (id) => deps.oauth.findClient(id));
    const error = new AuthorizeError('invalid_request_uri', 'request_uri: has expired; push the request again.');
    return { response: authorizationError(redirectTarget(pushed, redirectUri), deps.oauth.issuer, error) };
  } catch (err) {
    if (err instanceof UnverifiedRequestError) return page('request_uri: has expired.');
    throw err;
  }
}
