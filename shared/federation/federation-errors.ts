/**
 * The two ways reading an external OpenID provider fails (docs/federation.md "Reading a provider"),
 * each with a reason a caller turns into its own answer:
 *
 * - `ProviderError`: the provider could not be read (down, slow, too large, misconfigured). Not the
 *   client's fault: a token exchange or a login answers "try again later" and names the provider.
 * - `ProviderTokenError`: the provider was read and the token it is said to have issued is not
 *   acceptable (expired, wrong audience, unknown key...). The client's input: `invalid_grant` /
 *   `invalid_request` (RFC 8693 §2.2.2, RFC 6749 §5.2).
 *
 * Messages name the URL or claim at fault, never a token or a key.
 */
export type ProviderFailure =
  /** The URL is not an absolute http(s) URL, or carries credentials or a fragment. */
  | 'bad_url'
  /** http to a host that is not loopback, or loopback while the stage does not allow it. */
  | 'not_https'
  /** The host is, or resolves to, an address not on the internet (private, loopback, link-local...). */
  | 'private_address'
  /** Connection refused, host unknown, TLS failure, connection reset. */
  | 'unreachable'
  | 'connect_timeout'
  | 'timeout'
  | 'too_large'
  | 'redirect'
  | 'bad_status'
  | 'not_json'
  | 'bad_json'
  /** The discovery document's `issuer` is not the configured issuer (OIDC Discovery §4.3). */
  | 'issuer_mismatch'
  /** The discovery document lacks or garbles a member we need. */
  | 'bad_metadata'
  /** The JWKS is not a JWK Set (RFC 7517 §5), or holds more keys than the bound. */
  | 'bad_jwks';

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    readonly reason: ProviderFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type ProviderTokenFailure =
  | 'malformed'
  | 'alg_not_allowed'
  | 'unknown_key'
  | 'bad_signature'
  | 'expired'
  | 'not_yet_valid'
  | 'issuer'
  | 'audience'
  | 'claims';

export class ProviderTokenError extends Error {
  override readonly name = 'ProviderTokenError';
  constructor(
    readonly reason: ProviderTokenFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
