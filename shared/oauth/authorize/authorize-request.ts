import { unsafeTextReason } from '../../validation/safe-text.ts';
import { isStorableClientId } from '../authenticate-client.ts';
import type { OAuthClient } from '../oauth-deps.ts';
import { type Acr, isSupportedAcr } from '../user-tokens/acr.ts';
import { isRegisteredRedirectUri } from './redirect-uri.ts';

export type ResponseType = 'code' | 'token' | 'id_token' | 'id_token token';
export type ResponseMode = 'query' | 'fragment' | 'form_post';

export const RESPONSE_TYPES: readonly ResponseType[] = ['code', 'token', 'id_token', 'id_token token'];
export const RESPONSE_MODES: readonly ResponseMode[] = ['query', 'fragment', 'form_post'];
export const PROMPTS = ['none', 'login', 'consent'] as const;

/**
 * Every parameter `/authorize` reads besides `client_id`: what `/par` keeps of a pushed request
 * (RFC 9126 §2.1), so a parameter added to the checks below is added here too. Client
 * credentials and unknown parameters are never stored.
 */
export const AUTHORIZE_PARAMETERS = [
  'response_type',
  'response_mode',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'max_age',
  'login_hint',
  'audience',
  'resource',
  'connection',
  'acr_values',
] as const;

/** A validated authorization request (RFC 6749 §4.1.1, §4.2.1; OIDC Core §3.1.2.1). */
export interface AuthorizeRequest {
  responseType: ResponseType;
  responseMode: ResponseMode;
  redirectUri: string;
  scopes: string[];
  state?: string;
  nonce?: string;
  /** RFC 7636 S256 challenge. */
  codeChallenge?: string;
  prompt: string[];
  maxAge?: number;
  loginHint?: string;
  /** `audience` or RFC 8707 `resource`. */
  audience?: string;
  /** OIDC Core §3.1.2.1 `acr_values`: the supported ones, in the requested order (unknown ones are dropped). */
  acrValues?: Acr[];
}

/** Where an error goes once the redirect URI is trusted (RFC 6749 §4.1.2.1): back to the client. */
export interface RedirectTarget {
  redirectUri: string;
  responseMode: ResponseMode;
  state: string | undefined;
}

/** An error before the client and redirect URI are verified: an HTML page, never a redirect (docs/contract.md §7.4). */
export class UnverifiedRequestError extends Error {}

/** An error sent back to the client's verified redirect URI (RFC 6749 §4.1.2.1, §4.2.2.1). */
export class AuthorizeError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

/** Every value is at most this long (a URL bar's practical limit); longer is invalid_request. */
const MAX_VALUE = 2048;
/** RFC 7636 §4.2: BASE64URL(SHA-256(verifier)) is exactly 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/**
 * `acr_values` (OIDC Core §3.1.2.1): at most this many values, each at most this long. Ours are
 * 3 and 4 characters; the bounds leave room for a client that also names other providers' values.
 */
const MAX_ACR_VALUES = 10;
const MAX_ACR_VALUE = 128;
/** RFC 6749 §3.3 scope-token. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

type Params = Record<string, unknown>;

/**
 * One parameter as sent: absent, or one string. RFC 6749 §3.1: "Request and response parameters
 * MUST NOT be included more than once" (a repeated query parameter arrives as an array).
 */
function single(params: Params, name: string, fail: (message: string) => Error): string | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw fail(`${name}: must be sent once, as a string.`);
  // docs/contract.md §8 "Strings": control and bidi characters, lone surrogates, blank values.
  if (value.length > MAX_VALUE || unsafeTextReason(value, { allowEmpty: true })) throw fail(`${name}: is not valid.`);
  return value === '' ? undefined : value;
}

/** Phase 1 (docs/contract.md §7.4): `client_id` names a client and `redirect_uri` is one of its own. Errors are pages. */
export async function verifyClientAndRedirect(
  params: Params,
  findClient: (id: string) => Promise<OAuthClient | undefined>,
): Promise<{ client: OAuthClient; redirectUri: string }> {
  const fail = (message: string) => new UnverifiedRequestError(message);
  const clientId = single(params, 'client_id', fail);
  if (!clientId) throw fail('client_id: is required.');
  // docs/contract.md §8: the page never repeats what was sent, only which parameter is wrong.
  const client = isStorableClientId(clientId) ? await findClient(clientId) : undefined;
  if (!client) throw fail('client_id: names no client.');
  const redirectUri = single(params, 'redirect_uri', fail);
  if (!redirectUri) throw fail('redirect_uri: is required.');
  if (!isRegisteredRedirectUri(client.redirect_uris, redirectUri)) throw fail('redirect_uri: is not registered for this client.');
  // A registered URI is any absolute URI; a browser must never be sent to one that runs script.
  if (/^(javascript|data|vbscript|file):/i.test(redirectUri)) throw fail('redirect_uri: has a scheme that cannot receive a response.');
  return { client, redirectUri };
}

/** Where errors of phase 2 go: the verified URI, the requested (or the response type's default) mode, and `state`. */
export function redirectTarget(params: Params, redirectUri: string): RedirectTarget {
  const read = (name: string) => {
    const v = params[name];
    return typeof v === 'string' && v.length <= MAX_VALUE && !unsafeTextReason(v) ? v : undefined;
  };
  const type = normaliseResponseType(read('response_type'));
  const requested = read('response_mode');
  const fallback: ResponseMode = type && type !== 'code' ? 'fragment' : 'query';
  let mode = RESPONSE_MODES.includes(requested as ResponseMode) ? (requested as ResponseMode) : fallback;
  // A form can only be posted to a web origin; a native app's custom scheme gets the default mode.
  if (mode === 'form_post' && !/^https?:\/\//i.test(redirectUri)) mode = fallback;
  // Multiple Response Types §5: tokens never travel in a query string, errors of such a request neither.
  return { redirectUri, responseMode: mode === 'query' && fallback === 'fragment' ? 'fragment' : mode, state: read('state') };
}

/** `token id_token` and `id_token token` are the same response type (Multiple Response Types §5: order does not matter). */
function normaliseResponseType(value: string | undefined): ResponseType | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(' ').filter(Boolean).sort();
  const joined = parts.join(' ');
  return RESPONSE_TYPES.includes(joined as ResponseType) ? (joined as ResponseType) : undefined;
}

/**
 * Phase 2: every other parameter, for a client and redirect URI already verified. Errors are
 * `AuthorizeError`s, sent to the redirect URI. The rules, in order:
 * - `response_type` one of ours (`unsupported_response_type`); `code` needs the client's
 *   `authorization_code` grant, the others its `implicit` grant (`unauthorized_client`, docs/contract.md §5.1);
 * - `response_mode` one of ours; `query` never carries tokens (Multiple Response Types §5);
 * - `scope` tokens well-formed; `id_token` responses need `openid` (OIDC Core §3.2.2.1);
 * - PKCE (RFC 7636, docs/contract.md §7.8): `S256` only; a challenge without a method is `plain` and refused;
 *   required of public clients for `code`;
 * - `nonce` required when an ID token comes from this endpoint (OIDC Core §3.2.2.1);
 * - `prompt` values known, `none` alone (OIDC Core §3.1.2.1); `max_age` a non-negative integer;
 * - `audience` and `resource` equal when both are sent; `request` (request objects) not supported;
 *   `request_uri` never reaches here: start-authorization.ts resolves it first (RFC 9126 §4);
 * - `acr_values` at most MAX_ACR_VALUES values of at most MAX_ACR_VALUE characters; values we do
 *   not support are ignored (OIDC Core §3.1.2.1: a voluntary claim; docs/passkeys.md "amr and acr").
 */
export function parseAuthorizeRequest(params: Params, client: OAuthClient, redirectUri: string, target: RedirectTarget): AuthorizeRequest {
  const fail = (message: string) => new AuthorizeError('invalid_request', message);
  const get = (name: string) => single(params, name, fail);

  if (params.request !== undefined) throw new AuthorizeError('request_not_supported', 'request: request objects are not supported.');

  const rawType = get('response_type');
  if (!rawType) throw fail('response_type: is required.');
  const responseType = normaliseResponseType(rawType);
  if (!responseType) throw new AuthorizeError('unsupported_response_type', 'response_type: is not supported.');
  const grant = responseType === 'code' ? 'authorization_code' : 'implicit';
  if (!client.grant_types.includes(grant)) {
    throw new AuthorizeError('unauthorized_client', `response_type: the client may not use the ${grant} grant.`);
  }

  const rawMode = get('response_mode');
  if (rawMode !== undefined && !RESPONSE_MODES.includes(rawMode as ResponseMode)) throw fail('response_mode: is not supported.');
  if (rawMode === 'query' && responseType !== 'code') throw fail('response_mode: query cannot carry tokens; use fragment or form_post.');
  if (rawMode === 'form_post' && target.responseMode !== 'form_post') throw fail('response_mode: form_post needs an http(s) redirect_uri.');

  const scopes = [...new Set((get('scope') ?? '').split(' ').filter(Boolean))];
  if (scopes.some((s) => !SCOPE_TOKEN.test(s))) throw new AuthorizeError('invalid_scope', 'scope: holds a malformed scope token.');
  if (responseType.includes('id_token') && !scopes.includes('openid')) {
    throw new AuthorizeError('invalid_scope', 'scope: an id_token response needs the openid scope.');
  }

  const codeChallenge = get('code_challenge');
  const method = get('code_challenge_method');
  if (responseType === 'code') {
    if (method !== undefined && method !== 'S256') throw fail('code_challenge_method: only S256 is supported.');
    if (codeChallenge !== undefined && method === undefined) throw fail('code_challenge_method: is required (plain is not supported).');
    if (method !== undefined && codeChallenge === undefined) throw fail('code_challenge: is required with code_challenge_method.');
    if (codeChallenge !== undefined && !S256_CHALLENGE.test(codeChallenge)) throw fail('code_challenge: is not an S256 challenge.');
    if (client.is_public && codeChallenge === undefined) throw fail('code_challenge: is required for public clients (PKCE, RFC 7636).');
  }

  const nonce = get('nonce');
  if (responseType.includes('id_token') && nonce === undefined)
    throw fail('nonce: is required when an ID token is returned from /authorize.');

  const prompt = [...new Set((get('prompt') ?? '').split(' ').filter(Boolean))];
  if (prompt.some((p) => !(PROMPTS as readonly string[]).includes(p))) throw fail('prompt: holds an unsupported value.');
  if (prompt.includes('none') && prompt.length > 1) throw fail('prompt: none cannot be combined with other values.');

  const rawMaxAge = get('max_age');
  if (rawMaxAge !== undefined && !/^\d{1,9}$/.test(rawMaxAge)) throw fail('max_age: must be a non-negative integer.');

  const audience = get('audience');
  const resource = get('resource');
  if (audience && resource && audience !== resource) throw fail('audience: differs from resource; send one.');

  const acrSent = (get('acr_values') ?? '').split(' ').filter(Boolean);
  if (acrSent.length > MAX_ACR_VALUES || acrSent.some((a) => a.length > MAX_ACR_VALUE)) {
    throw fail(`acr_values: at most ${MAX_ACR_VALUES} values of at most ${MAX_ACR_VALUE} characters each.`);
  }
  const acrValues = [...new Set(acrSent.filter(isSupportedAcr))];

  const state = get('state');
  const loginHint = get('login_hint');
  const target_ = audience ?? resource;
  return {
    responseType,
    responseMode: target.responseMode,
    redirectUri,
    scopes,
    prompt,
    ...(state !== undefined ? { state } : {}),
    ...(nonce !== undefined ? { nonce } : {}),
    ...(codeChallenge !== undefined ? { codeChallenge } : {}),
    ...(rawMaxAge !== undefined ? { maxAge: Number(rawMaxAge) } : {}),
    ...(loginHint !== undefined ? { loginHint } : {}),
    ...(target_ !== undefined ? { audience: target_ } : {}),
    ...(acrValues.length ? { acrValues } : {}),
  };
}
