/** Spec 2.10 (plus RFC 6749 §5.1's `scope` when the granted scope differs from the request). */
export interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  /** `DPoP` when the access token is bound to the key of the request's proof (RFC 9449 §5). */
  token_type: 'Bearer' | 'DPoP';
  /** Seconds (RFC 6749 §5.1). */
  expires_in: number;
  scope?: string;
  /** RFC 8693 §2.2.1: what a token exchange issued (`urn:ietf:params:oauth:token-type:access_token`). */
  issued_token_type?: string;
}
