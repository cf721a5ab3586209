/**
 * A pushed authorization request (RFC 9126 §2): what `/par` validated and stored, and what
 * `/authorize` takes back once by its `request_uri` (docs/client-authentication.md "Pushed
 * authorization requests (PAR)").
 */
export interface PushedRequestRecord {
  /** The client that pushed it, authenticated at `/par`: only it may use the `request_uri` (RFC 9126 §4). */
  client_id: string;
  /** The authorization request's parameters as pushed and validated (authorize-request.ts `AUTHORIZE_PARAMETERS`). */
  params: Record<string, string>;
  created_at: string;
  expires_at: string;
}

/** RFC 9126 §2.2: the URN prefix of every `request_uri` we issue. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** Our `request_uri`: the prefix and 32 random bytes in base64url (256 bits, RFC 9126 §7.1 "not guessable"). */
const REQUEST_URI = /^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/;

/** Whether a value could be a `request_uri` we issued: anything else is refused before any read. */
export const isPushedRequestUri = (value: string): boolean => REQUEST_URI.test(value);
