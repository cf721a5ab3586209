import { createHash, randomBytes } from 'node:crypto';
import { serialize } from 'cookie';
import { isAppError } from '../errors.ts';
import { ProviderError, ProviderTokenError } from '../federation/federation-errors.ts';
import type { PostForm } from '../federation/post-bounded.ts';
import type { ProviderKeys, ProviderSource } from '../federation/provider-keys.ts';
import type { ProviderMetadata } from '../federation/provider-metadata.ts';
import { checkProviderUrl, type UrlPolicy } from '../federation/provider-url.ts';
import { type ProviderIdentity, verifyProviderIdToken } from '../federation/verify-provider-id-token.ts';
import { errorPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import { authorizationError } from '../oauth/authorize/authorization-response.ts';
import { AuthorizeError, type AuthorizeRequest } from '../oauth/authorize/authorize-request.ts';
import { isRegisteredRedirectUri } from '../oauth/authorize/redirect-uri.ts';
import type { OAuthDeps } from '../oauth/oauth-deps.ts';
import type { EventOrigin } from '../records/event-record.ts';
import type { IdentityProviderRecord } from '../records/identity-provider-record.ts';
import type { UserRecord } from '../records/user-record.ts';
import type { FederatedLoginsRepository } from '../store/sessions/federated-logins-repository.ts';
import { FEDERATED_LOGIN_LIFETIME_SECONDS } from '../store/sessions/federated-logins-repository.ts';
import type { InteractionRecord } from '../store/sessions/interactions-repository.ts';
import { interactionGone } from './browser-responses.ts';
import { readCookie } from './cookies.ts';

/**
 * Federated login (docs/federation.md "Federated login", docs/contract.md §7.4, §7.7): the browser
 * is sent to a tenant's OpenID provider with a code request of our own (state, nonce, PKCE S256:
 * RFC 9700 §2.1.1, OIDC Core §3.1.2.1), and comes back to `/login/callback`, which redeems the
 * code at the provider's token endpoint, verifies the ID token, finds or creates the user and
 * goes on exactly as a password login does.
 */

/** Where every provider sends the browser back: `{base_url}/login/callback`. */
export const CALLBACK_PATH = '/login/callback';
/**
 * Binds a sign-in to the browser that started it: random, stored only hashed with the sign-in,
 * sent only to the callback (`Path`). SameSite=Lax: the provider's redirect back is a top-level GET.
 */
export const FEDERATION_COOKIE = 'federation';

/** A tenant's identity providers as federated login reads them (identity-providers-repository.ts). */
export interface FederationProviders {
  byId(tenantId: string, id: string): Promise<IdentityProviderRecord | undefined>;
  byName(tenantId: string, providerName: string): Promise<IdentityProviderRecord | undefined>;
  enabled(tenantId: string): Promise<IdentityProviderRecord[]>;
}

export interface FederatedLoginDeps {
  providers: FederationProviders;
  /** The container's key cache (shared/wiring/federation.ts): the discovery document comes with the keys. */
  providerKeys(source: ProviderSource): Promise<ProviderKeys>;
  postForm: PostForm;
  logins: FederatedLoginsRepository;
  /** Opens a sealed secret (the provider's client secret). */
  openSecret(sealed: string): Promise<string>;
  /** The linked user, or a new one linked (resolve-federated-user.ts); an AppError 400 when it cannot be. */
  resolveUser(provider: IdentityProviderRecord, identity: ProviderIdentity): Promise<UserRecord>;
  /** Our client, to check its redirect URI again before an error goes back to it. */
  findClient: OAuthDeps['findClient'];
  urlPolicy: UrlPolicy;
  issuer: string;
  secureCookies: boolean;
}

/** The provider cannot be used for a sign-in now: unreachable, or configured without discovery. */
export class FederationUnavailable extends Error {
  constructor(
    readonly error: 'temporarily_unavailable' | 'server_error',
    message: string,
  ) {
    super(message);
  }
}

const random = () => randomBytes(32).toString('base64url');
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** The provider's discovery document: its endpoints are what a code flow needs. */
async function endpointsOf(
  provider: IdentityProviderRecord,
  deps: FederatedLoginDeps,
): Promise<{ keys: ProviderKeys; metadata: ProviderMetadata }> {
  let keys: ProviderKeys;
  try {
    keys = await deps.providerKeys(sourceOf(provider));
  } catch (err) {
    if (err instanceof ProviderError)
      throw new FederationUnavailable('temporarily_unavailable', `The identity provider ${provider.provider_name} cannot be reached.`);
    throw err;
  }
  // A provider configured with a `jwks_uri` only is read without discovery: it names no
  // authorization or token endpoint, so it serves token exchange but not sign-in.
  if (!keys.metadata?.token_endpoint) {
    throw new FederationUnavailable(
      'server_error',
      `The identity provider ${provider.provider_name} is not configured for sign-in (no discovery document with a token endpoint).`,
    );
  }
  return { keys, metadata: keys.metadata };
}

const sourceOf = (p: IdentityProviderRecord): ProviderSource => ({
  issuer: p.issuer,
  ...(p.jwks_uri !== undefined ? { jwksUri: p.jwks_uri } : {}),
  ...(p.discovery_url !== undefined ? { discoveryUrl: p.discovery_url } : {}),
});

/** `openid` is what makes the provider answer an ID token (OIDC Core §3.1.2.1). */
const scopeOf = (p: IdentityProviderRecord) => (p.scopes.includes('openid') ? p.scopes : ['openid', ...p.scopes]).join(' ');

/**
 * Sends the browser to the provider for `interaction`: a fresh `state` (the sign-in's key, 256
 * bits), `nonce` and PKCE verifier stored server-side, and the binding cookie set. A
 * `FederationUnavailable` when the provider cannot be used (the caller answers it its own way).
 */
export async function startFederatedLogin(
  interaction: InteractionRecord,
  provider: IdentityProviderRecord,
  deps: FederatedLoginDeps,
): Promise<HttpResponse> {
  const { metadata } = await endpointsOf(provider, deps);
  let endpoint: URL;
  try {
    // The browser is sent there: the URL policy of everything read from a provider (https).
    endpoint = checkProviderUrl(metadata.authorization_endpoint, deps.urlPolicy);
  } catch {
    throw new FederationUnavailable(
      'server_error',
      `The identity provider ${provider.provider_name} names an authorization endpoint that is not https.`,
    );
  }
  const state = random();
  const nonce = random();
  const verifier = random();
  const binding = random();
  await deps.logins.create(state, binding, {
    interaction_id: interaction.id,
    tenant_id: interaction.tenant_id,
    provider_id: provider.id,
    nonce,
    code_verifier: verifier,
  });
  const params = {
    response_type: 'code',
    client_id: provider.client_id,
    redirect_uri: `${deps.issuer}${CALLBACK_PATH}`,
    scope: scopeOf(provider),
    state,
    nonce,
    code_challenge: s256(verifier),
    code_challenge_method: 'S256',
    // The client's own hints carry over (OIDC Core §3.1.2.1): who is expected, and that the user
    // must sign in again rather than ride on a session at the provider.
    ...(interaction.login_hint !== undefined ? { login_hint: interaction.login_hint } : {}),
    ...(interaction.prompt.includes('login') ? { prompt: 'login' } : {}),
  };
  for (const [k, v] of Object.entries(params)) endpoint.searchParams.set(k, v);
  const cookie = serialize(FEDERATION_COOKIE, binding, {
    httpOnly: true,
    sameSite: 'lax',
    path: CALLBACK_PATH,
    secure: deps.secureCookies,
    maxAge: FEDERATED_LOGIN_LIFETIME_SECONDS,
  });
  return { statusCode: 303, headers: { Location: endpoint.href, 'Cache-Control': 'no-store', 'Set-Cookie': cookie }, body: '' };
}

/** The callback's query (the provider's authorization response, RFC 6749 §4.1.2, §4.1.2.1; RFC 9207 `iss`). */
export interface CallbackQuery {
  state?: string;
  code?: string;
  error?: string;
  iss?: string;
}

export interface CallbackRequest {
  query: CallbackQuery;
  headers: Record<string, string | undefined>;
  /** Where the request came from: the sign-in's events carry it (docs/events.md). */
  origin?: EventOrigin;
}

/** What the callback finishes with once the user is known: the login page's completion (login-attempts.ts). */
export interface CallbackDeps {
  federation: FederatedLoginDeps;
  interactions: {
    readInteraction(id: string): Promise<InteractionRecord | undefined>;
    consumeInteraction(id: string): Promise<InteractionRecord | undefined>;
  };
  completeLogin(interaction: InteractionRecord, user: UserRecord): Promise<HttpResponse>;
}

/**
 * Errors a provider may answer that mean the same to our client (RFC 6749 §4.1.2.1, OIDC Core
 * §3.1.2.6): passed on. Any other (`invalid_request`, `unauthorized_client`, `server_error`...) is a
 * fault between us and the provider, which our client can do nothing about: `server_error`.
 */
const PASSED_ON = new Set([
  'access_denied',
  'temporarily_unavailable',
  'login_required',
  'consent_required',
  'interaction_required',
  'account_selection_required',
]);

const callbackPage = (status: number, message: string) => errorPage(status, 'Sign-in failed', message);
const notVerified = (name: string) =>
  callbackPage(400, `The sign-in with ${name} could not be verified. Go back to the application and start again.`);
const unreachable = (name: string) => callbackPage(502, `${name} did not answer. Go back to the application and try again in a moment.`);

/**
 * GET `/login/callback` (docs/federation.md "Federated login"). The sign-in is taken by `state`
 * and the browser's binding cookie together, once; anything that cannot be tied to a sign-in of
 * this browser is a 400 page, never a redirect. The provider's `error` goes on to our client as
 * an OAuth error with its `state`; a code is redeemed (client_secret_basic, the PKCE verifier),
 * its ID token verified (signature, `iss`, `aud` our client id there, the nonce), and the user
 * found or created; then the login page's completion (session, interaction, consent).
 */
export async function finishFederatedLogin(req: CallbackRequest, deps: CallbackDeps): Promise<HttpResponse> {
  const fed = deps.federation;
  const { state, code, error, iss } = req.query;
  const binding = readCookie(req.headers, FEDERATION_COOKIE);
  const login = state && binding ? await fed.logins.take(state, binding) : undefined;
  if (!login) {
    return callbackPage(
      400,
      'This sign-in has expired, was already completed, or was started in another browser. Go back to the application and start again.',
    );
  }
  const interaction = await deps.interactions.readInteraction(login.interaction_id);
  if (!interaction) return interactionGone();
  const provider = await fed.providers.byId(login.tenant_id, login.provider_id);
  if (!provider?.enabled) return toClient(interaction, 'access_denied', 'The identity provider is no longer available.', deps);

  let keys: ProviderKeys;
  let metadata: ProviderMetadata;
  try {
    ({ keys, metadata } = await endpointsOf(provider, fed));
  } catch (err) {
    if (err instanceof FederationUnavailable) return unreachable(provider.provider_name);
    throw err;
  }
  // RFC 9207 §2.4: `iss`, when sent, must be the provider's issuer; a provider that says it
  // always sends it must have sent it. Otherwise the answer may come from another provider
  // (a mix-up attack, RFC 9700 §4.4), and nothing in it is used.
  if (iss !== undefined ? iss !== provider.issuer : metadata.authorization_response_iss_parameter_supported === true) {
    return notVerified(provider.provider_name);
  }
  if (error !== undefined) {
    const passed = PASSED_ON.has(error) ? error : 'server_error';
    return toClient(interaction, passed, `The identity provider ${provider.provider_name} answered ${passed}.`, deps);
  }
  if (!code) return notVerified(provider.provider_name);

  let identity: ProviderIdentity;
  try {
    const idToken = await redeem(provider, metadata.token_endpoint!, code, login.code_verifier, fed);
    if (idToken === undefined) return notVerified(provider.provider_name);
    // OIDC Core §3.1.3.7 (3): the ID token of our own code flow is for our client id there.
    identity = await verifyProviderIdToken(idToken, keys, { audience: provider.client_id, nonce: login.nonce });
  } catch (err) {
    if (err instanceof ProviderTokenError) return notVerified(provider.provider_name);
    if (err instanceof ProviderError) return unreachable(provider.provider_name);
    throw err;
  }

  let user: UserRecord;
  try {
    user = await fed.resolveUser(provider, identity);
  } catch (err) {
    // An email address another user of the tenant has: nothing is linked silently (docs/contract.md §7.7).
    if (isAppError(err) && err.status === 400) return toClient(interaction, err.code, err.message, deps);
    throw err;
  }
  if (user.blocked) return toClient(interaction, 'access_denied', 'The user is blocked.', deps);
  return deps.completeLogin(interaction, user);
}

/**
 * The code redeemed at the provider (RFC 6749 §4.1.3, RFC 7636 §4.5): its ID token, or undefined
 * when the provider refuses the code (used, tampered, expired) or answers no ID token.
 */
async function redeem(
  provider: IdentityProviderRecord,
  tokenEndpoint: string,
  code: string,
  verifier: string,
  deps: FederatedLoginDeps,
): Promise<string | undefined> {
  const form: Record<string, string> = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: `${deps.issuer}${CALLBACK_PATH}`,
    code_verifier: verifier,
  };
  const headers: Record<string, string> = {};
  if (provider.client_secret_sealed !== undefined) {
    // client_secret_basic (RFC 6749 §2.3.1): both halves form-urlencoded before base64.
    const secret = await deps.openSecret(provider.client_secret_sealed);
    const pair = `${encodeURIComponent(provider.client_id)}:${encodeURIComponent(secret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  } else {
    // A public client at the provider (RFC 6749 §4.1.3): identified, PKCE protects the code.
    form.client_id = provider.client_id;
  }
  const answer = await deps.postForm(new URL(tokenEndpoint), form, headers);
  if (answer.status !== 200) {
    // RFC 6749 §5.2: a refused grant is the code's fault; anything else is the provider's.
    const refused = (answer.body as { error?: unknown } | null)?.error === 'invalid_grant';
    if (refused) return undefined;
    throw new ProviderError('bad_status', `The token endpoint of ${provider.provider_name} answered ${answer.status}.`);
  }
  const idToken = (answer.body as { id_token?: unknown } | null)?.id_token;
  return typeof idToken === 'string' ? idToken : undefined;
}

/**
 * An error for our client: the interaction is used up, and the error goes to the redirect URI of
 * its `/authorize` request with its `state` (checked again: the client may have changed during
 * the sign-in). A device sign-in has no redirect URI: a page says it.
 */
async function toClient(interaction: InteractionRecord, error: string, description: string, deps: CallbackDeps): Promise<HttpResponse> {
  const consumed = await deps.interactions.consumeInteraction(interaction.id);
  if (!consumed) return interactionGone();
  const request = (consumed.payload as { request?: AuthorizeRequest }).request;
  if (consumed.kind !== 'authorize' || !request) return callbackPage(400, `The sign-in failed: ${description}`);
  const client = await deps.federation.findClient(consumed.client_id);
  if (!client || !isRegisteredRedirectUri(client.redirect_uris, request.redirectUri)) {
    return callbackPage(400, 'The application of this sign-in is no longer registered for this address.');
  }
  const target = { redirectUri: request.redirectUri, responseMode: request.responseMode, state: request.state };
  return authorizationError(target, deps.federation.issuer, new AuthorizeError(error, description));
}
