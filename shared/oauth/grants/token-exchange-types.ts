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
