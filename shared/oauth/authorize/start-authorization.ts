import { consentNeeded } from '../../browser/consent-needed.ts';
import { FederationUnavailable, startFederatedLogin } from '../../browser/federated-login.ts';
import { isAppError } from '../../errors.ts';
import type { HttpResponse } from '../../http/response.ts';
import type { IdentityProviderRecord } from '../../records/identity-provider-record.ts';
import { DEFAULT_TENANT_ID } from '../../records/tenant-record.ts';
import type { OAuthClient, TokenResource } from '../oauth-deps.ts';
import { sessionMeetsAcr } from '../user-tokens/acr.ts';
import { mayCarryUserTokens, NOT_LINKED_MESSAGE } from '../user-tokens/management-api-link.ts';
import { authorizationError, unverifiedRequestPage } from './authorization-response.ts';
import type { AuthorizeDeps } from './authorize-deps.ts';
import {
  AuthorizeError,
  type AuthorizeRequest,
  parseAuthorizeRequest,
  type RedirectTarget,
  redirectTarget,
  UnverifiedRequestError,
  verifyClientAndRedirect,
} from './authorize-request.ts';
import { issueAuthorization } from './issue-authorization.ts';
import { takePushedRequest } from './pushed-request.ts';

/** Where the pages send the browser back after login and consent (flows-plan.md "The flow", step 4). */
export const resumePath = (interactionId: string) => `/authorize/resume?interaction=${interactionId}`;

/**
 * GET and POST /authorize (RFC 6749 §4.1.1, §4.2.1; OIDC Core §3.1.2; docs/contract.md §5, §7.4):
 * 0. with `request_uri`, the pushed request is taken once and its parameters are the request's
 *    (pushed-request.ts, RFC 9126 §4); a client that requires PAR sends nothing else (§5);
 * 1. the client and its redirect URI are verified first; any error before that is an HTML page
 *    (400), never a redirect (RFC 6749 §4.1.2.1, RFC 9700 §4.1);
 * 2. every other parameter (authorize-request.ts); an error goes back to the redirect URI with
 *    `state` and `iss` (RFC 9207);
 * 3. `audience`/`resource` names a Resource of the client's tenant, and the management API only
 *    for a client authorized on it (RFC 8707 `invalid_target`, before any login or consent);
 * 4. `prompt=none` answers at once from the browser's session (OIDC Core §3.1.2.6:
 *    `login_required`, `consent_required`, or the code/tokens);
 * 5. otherwise an Interaction is stored and the browser goes to the login page (303), or, with
 *    `connection=<provider_name>`, straight to that identity provider of the client's tenant
 *    (docs/federation.md "Federated login"; an unknown or disabled one is `invalid_request`).
 */
export async function startAuthorization(
  sent: Record<string, unknown>,
  cookie: string | undefined,
  deps: AuthorizeDeps,
): Promise<HttpResponse> {
  let params = sent;
  const pushed = sent.request_uri !== undefined;
  if (pushed) {
    const taken = await takePushedRequest(sent, deps);
    if ('response' in taken) return taken.response;
    params = taken.params;
  }
  let verified: { client: OAuthClient; redirectUri: string };
  try {
    verified = await verifyClientAndRedirect(params, (id) => deps.oauth.findClient(id));
  } catch (err) {
    if (err instanceof UnverifiedRequestError) return unverifiedRequestPage(err.message);
    throw err;
  }
  const { client, redirectUri } = verified;
  const target = redirectTarget(params, redirectUri);
  return answerErrorsToClient(target, deps, async () => {
    // RFC 9126 §5: such a client's requests come only through /par.
    if (client.require_pushed_authorization_requests && !pushed) {
      throw new AuthorizeError('invalid_request', 'request_uri: this client must push its authorization requests to /par first.');
    }
    const { request, resource, provider } = await checkAuthorizeRequest(params, client, redirectUri, target, deps);
    if (request.prompt.includes('none')) return answerWithoutInteraction(client, request, resource, cookie, deps);
    const interaction = await deps.interactions.createInteraction({
      kind: 'authorize',
      tenant_id: client.tenant_id,
      client_id: client.id,
      scopes: request.scopes,
      ...(resource ? { resource_id: resource.id } : {}),
      prompt: request.prompt,
      ...(request.maxAge !== undefined ? { max_age: request.maxAge } : {}),
      ...(request.loginHint !== undefined ? { login_hint: request.loginHint } : {}),
      // The login page lets a session stand in only when its amr meets one of them (acr.ts).
      ...(request.acrValues ? { acr_values: request.acrValues } : {}),
      payload: { request },
      return_to: resumePath('{id}'),
      // The last hop after the login or consent form's POST is the client (CSP3 form-action): its
      // origin, or a native app's scheme (a CSP scheme-source).
      form_actions: [/^https?:\/\//i.test(redirectUri) ? new URL(redirectUri).origin : new URL(redirectUri).protocol],
    });
    if (provider) {
      try {
        return await startFederatedLogin(interaction, provider, deps.federation!);
      } catch (err) {
        if (err instanceof FederationUnavailable) throw new AuthorizeError(err.error, `connection: ${err.message}`);
        throw err;
      }
    }
    return {
      statusCode: 303,
      headers: { Location: `${deps.oauth.issuer}/login?interaction=${encodeURIComponent(interaction.id)}`, 'Cache-Control': 'no-store' },
      body: '',
    };
  });
}

/**
 * Phases 2 and 3 of `/authorize` for a verified client and redirect URI: the parameters, the
 * target Resource and the `connection`. `/par` runs the same checks on a pushed request (RFC 9126
 * §2.1), so what a pushed request may hold is what `/authorize` accepts.
 */
export async function checkAuthorizeRequest(
  params: Record<string, unknown>,
  client: OAuthClient,
  redirectUri: string,
  target: RedirectTarget,
  deps: Pick<AuthorizeDeps, 'oauth' | 'federation'>,
): Promise<{ request: AuthorizeRequest; resource: TokenResource | undefined; provider: IdentityProviderRecord | undefined }> {
  const request = parseAuthorizeRequest(params, client, redirectUri, target);
  const resource = await targetResource(client, request, deps);
  const provider = await connectionOf(params, client, deps);
  return { request, resource, provider };
}

/**
 * The identity provider `connection` names: one of the client's tenant, enabled, by
 * `provider_name` (docs/contract.md §7.4); undefined without the parameter.
 */
async function connectionOf(
  params: Record<string, unknown>,
  client: OAuthClient,
  deps: Pick<AuthorizeDeps, 'federation'>,
): Promise<IdentityProviderRecord | undefined> {
  const name = params.connection;
  if (name === undefined) return undefined;
  if (typeof name !== 'string' || name.length === 0 || name.length > 2048) {
    throw new AuthorizeError('invalid_request', 'connection: must be one provider name.');
  }
  const provider = deps.federation ? await deps.federation.providers.byName(client.tenant_id, name) : undefined;
  if (!provider?.enabled) throw new AuthorizeError('invalid_request', 'connection: names no enabled identity provider of this tenant.');
  return provider;
}

/** Runs `answer`; an AuthorizeError (or an OAuth error of the token core) goes to the client's redirect URI. */
export async function answerErrorsToClient(
  target: RedirectTarget,
  deps: AuthorizeDeps,
  answer: () => Promise<HttpResponse>,
): Promise<HttpResponse> {
  try {
    return await answer();
  } catch (err) {
    if (err instanceof AuthorizeError) return authorizationError(target, deps.oauth.issuer, err);
    // The user-token core's refusals (invalid_target, invalid_scope) are the client's to hear.
    if (isAppError(err) && err.status === 400)
      return authorizationError(target, deps.oauth.issuer, new AuthorizeError(err.code, err.message));
    throw err;
  }
}

/**
 * The Resource `audience` names: the client's tenant, or the management API (shared by every
 * tenant), which only a client authorized on it may ask for (management-api-link.ts).
 */
export async function targetResource(
  client: OAuthClient,
  request: Pick<AuthorizeRequest, 'audience'>,
  deps: Pick<AuthorizeDeps, 'oauth'>,
): Promise<TokenResource | undefined> {
  if (request.audience === undefined) return undefined;
  const tenant = request.audience === deps.oauth.managementAudience ? DEFAULT_TENANT_ID : client.tenant_id;
  const resource = await deps.oauth.findResource(tenant, request.audience);
  if (!resource) throw new AuthorizeError('invalid_target', 'audience: names no resource of this tenant.');
  if (!mayCarryUserTokens(client, resource)) throw new AuthorizeError('invalid_target', NOT_LINKED_MESSAGE);
  return resource;
}

/**
 * `prompt=none` (OIDC Core §3.1.2.1): no page may be shown. A live session of the client's tenant,
 * recent enough for `max_age`, whose `amr` meets one of the `acr_values` asked for (acr.ts; none
 * asked: any), and nothing to consent to (a User Grant covering the scopes, or a
 * first-party skip: docs/contract.md §7.4) → the code or tokens; else `login_required` / `consent_required`.
 */
async function answerWithoutInteraction(
  client: OAuthClient,
  request: AuthorizeRequest,
  resource: TokenResource | undefined,
  cookie: string | undefined,
  deps: AuthorizeDeps,
): Promise<HttpResponse> {
  const session = cookie ? await deps.sessions.findSession(cookie) : undefined;
  if (!session || session.tenant_id !== client.tenant_id) throw new AuthorizeError('login_required', 'The user is not signed in.');
  const nowSeconds = Math.floor(deps.oauth.now().getTime() / 1000);
  if (request.maxAge !== undefined && nowSeconds - session.auth_time > request.maxAge) {
    throw new AuthorizeError('login_required', 'The sign-in is older than max_age.');
  }
  if (!sessionMeetsAcr(request.acrValues, session.amr)) {
    throw new AuthorizeError('login_required', 'The sign-in does not meet any of the requested acr_values.');
  }
  const [grant, resourceRecord] = await Promise.all([
    deps.consents.findConsent(session.user_id, client.id, resource?.id),
    resource ? deps.getResource(resource.id) : undefined,
  ]);
  const consent = consentNeeded({
    client,
    // A Resource that vanished meanwhile skips nothing.
    resource: resource
      ? (resourceRecord ?? { resource_metadata: { skip_consent_for_first_party: false, is_system: resource.is_system } })
      : undefined,
    grant,
    scopes: request.scopes,
    prompt: request.prompt,
  });
  if (consent) throw new AuthorizeError('consent_required', 'The user has not granted these scopes to the client.');
  return issueAuthorization(
    {
      client,
      request,
      userId: session.user_id,
      sessionId: session.id,
      authTime: session.auth_time,
      amr: session.amr,
      scopes: request.scopes,
    },
    deps,
  );
}
