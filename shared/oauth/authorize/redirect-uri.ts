/**
 * A loopback redirect URI with an IP literal host (RFC 8252 §7.3): `http`, `127.0.0.1` or `[::1]`,
 * an optional port, then the rest. Matched on the raw string, never a parsed and normalised URL,
 * so case, dot segments, percent-encoding and userinfo tricks cannot make two strings equal.
 */
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::\d{1,5})?([/?].*)?$/;

/** The URI without its port when it is a loopback IP literal URI; undefined otherwise. */
function loopbackWithoutPort(uri: string): string | undefined {
  const m = LOOPBACK.exec(uri);
  return m ? `http://${m[1]}${m[2] ?? ''}` : undefined;
}

/**
 * Whether `presented` is one of the client's registered redirect URIs (docs/contract.md §7.4, §7.8;
 * RFC 9700 §4.1.3 "exact string matching"): equal as strings, except that a loopback IP literal
 * URI matches with any port (RFC 8252 §7.3: native apps bind an ephemeral port). No prefix, case,
 * trailing-slash, query or fragment variant matches; `localhost` is not special (RFC 8252 §8.3).
 */
export function isRegisteredRedirectUri(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  const loose = loopbackWithoutPort(presented);
  return loose !== undefined && registered.some((r) => loopbackWithoutPort(r) === loose);
}
