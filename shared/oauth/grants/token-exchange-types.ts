import * as v from 'valibot';
import { MAX_ID_TOKEN_LENGTH } from '../../federation/id-token-length.ts';
import type { TokenRequest } from './token-grant.ts';

/** RFC 8693 §3 token type identifiers. */
export const TOKEN_TYPE_PREFIX = 'urn:ietf:params:oauth:token-type:';
/** RFC 8693 §3: what the exchange issues, and the type of one of our own access tokens as a subject. */
export const ACCESS_TOKEN_TYPE = `${TOKEN_TYPE_PREFIX}access_token`;

/** The exchange's parameters as its handlers read them (token-exchange.ts validates them). */
export interface ExchangeRequest {
  subject_token: string;
  subject_token_type: string;
  scope?: string | undefined;
  audience?: string | undefined;
  resource?: string | undefined;
}

/** A provider's name or a token-type URN (RFC 8693 §3); both are short. */
const tokenType = v.pipe(v.string(), v.minLength(1, 'is required'), v.maxLength(256));

/** The exchange's own parameters (RFC 8693 §2.1). */
export const TokenExchangeParams = v.looseObject({
  // docs/federation.md: an ID token is at most 16 KB; ours are far smaller.
  subject_token: v.pipe(v.string(), v.minLength(1, 'is required'), v.maxLength(MAX_ID_TOKEN_LENGTH)),
  subject_token_type: tokenType,
  requested_token_type: v.optional(tokenType),
  actor_token: v.optional(v.pipe(v.string(), v.maxLength(MAX_ID_TOKEN_LENGTH))),
  actor_token_type: v.optional(tokenType),
});
export type TokenExchangeRequest = TokenRequest & v.InferOutput<typeof TokenExchangeParams>;
