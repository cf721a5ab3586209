import * as v from 'valibot';
import type { EventOrigin } from '../../records/event-record.ts';
import type { AuthenticatedClient } from '../authenticate-client.ts';
import { CLIENT_ASSERTION_PARAMS } from '../client-auth/client-assertion.ts';
import type { DpopBinding } from '../dpop/token-dpop.ts';
import type { OAuthDeps, TokenPreload } from '../oauth-deps.ts';
import type { TokenResponse } from '../token-response.ts';
import type { TokenExchangeDeps } from './token-exchange-deps.ts';

const optional = v.optional(v.pipe(v.string(), v.maxLength(4096)));

/**
 * POST /token parameters every grant shares (spec 4.2): the grant, client authentication (RFC 6749
 * §2.3), `scope` (§3.3) and the target Resource (`audience`, or RFC 8707 `resource`). A grant's own
 * parameters are its `params` schema. RFC 6749 §3.2: unknown parameters are ignored, so the object
 * is loose; a parameter sent as something other than one string is a 400 naming it.
 */
export const TokenRequestSchema = v.looseObject({
  grant_type: v.pipe(v.string(), v.minLength(1, 'is required')),
  client_id: optional,
  client_secret: optional,
  // private_key_jwt (RFC 7523 §2.2): checked by authenticate-client.ts.
  ...CLIENT_ASSERTION_PARAMS,
  scope: optional,
  audience: optional,
  resource: optional,
});
export type TokenRequest = v.InferOutput<typeof TokenRequestSchema>;

/** What the token endpoint hands a grant besides the client, its parameters and the token path's dependencies. */
export interface GrantContext {
  /** The request's headers (lower-case names): token exchange reads a global client's `tenant_id` (docs/contract.md §7.7). */
  headers: Record<string, string | undefined>;
  /**
   * Token exchange's own dependencies (identity providers, their keys, federated users), built on
   * the first call: only /token has them, and it loads their code with the first exchange
   * (docs/benchmarks.md "Token function bundle, token exchange").
   */
  exchange: () => Promise<TokenExchangeDeps>;
  /**
   * The key of the request's checked DPoP proof (dpop/token-dpop.ts): a grant binds the access
   * token it issues to it (`cnf.jkt`, RFC 9449 §6.1) and answers `token_type: DPoP`.
   */
  dpop?: DpopBinding | undefined;
  /** Where the request came from (its id, address, user agent): every security event of the grant carries it (docs/events.md). */
  origin?: EventOrigin;
}

/**
 * One grant of `/token`, in the spirit of node-oidc-provider's `grantTypeHandlers` (each of its
 * lib/actions/grants/*.js exports `grantType`, `parameters` and `handler`). The token endpoint
 * (issue-token.ts) finds the grant by `grant_type`, validates its `params`, reads what its `preload`
 * names in the one cold BatchGetItem, authenticates the client, checks that the client may use the
 * grant, and calls `handle`. Adding a grant: docs/tokens.md "Adding a grant".
 */
export interface TokenGrant<P extends object = object> {
  /** The name stored in `client_metadata.grant_types` (docs/contract.md §7.7: the spec's short name). */
  readonly name: string;
  /** Other `grant_type` spellings of this grant at `/token`: RFC URNs, the spec's aliases (docs/contract.md §5.1). */
  readonly aliases?: readonly string[];
  /**
   * The grant's own parameters (beyond TokenRequestSchema), validated before anything is read;
   * a loose object, as RFC 6749 §3.2 ignores unknown parameters. Omitted when it has none.
   */
  readonly params?: v.GenericSchema<unknown, P>;
  /**
   * What the cold BatchGetItem should read for this request besides the client. It runs before the
   * client is authenticated, so it may only choose reads, never decide anything.
   */
  preload?(request: TokenRequest & P): TokenPreload;
  /** Issues the token to a client that authenticated and may use this grant (RFC 6749 §5.1 / §5.2). */
  handle(client: AuthenticatedClient, request: TokenRequest & P, deps: OAuthDeps, context: GrantContext): Promise<TokenResponse>;
}

/** A grant of any parameter shape, as the registry holds them. */
// biome-ignore lint/suspicious/noExplicitAny: handle() is contravariant in P, so no narrower type holds every grant
export type AnyTokenGrant = TokenGrant<any>;

/** Declares a grant with its parameter types inferred from its `params` schema. */
export const defineGrant = <P extends object = object>(grant: TokenGrant<P>): TokenGrant<P> => grant;
