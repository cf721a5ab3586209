/** RFC 8252 §7.3 / §8.3: the loopback interface, where a native app listens over plain http. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** C0 and C1 controls, DEL, white space, and a backslash (which WHATWG URL parsing reads as `/`). */
const isUnsafe = (c: string): boolean => {
  const code = c.codePointAt(0)!;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || /\s/u.test(c) || c === '\\';
};

/**
 * Where a ticket page may send the browser after a successful redemption (`result_url`, docs/contract.md
 * §6 tickets). Checked when the ticket is created, so the page never becomes an open redirect to
 * a `javascript:`, `data:` or plain-http address: an absolute `https` URL, or `http` on a loopback
 * host; no user info (`https://good.example@evil.example/` reads as the wrong host), no fragment
 * (the page appends nothing, and a fragment could smuggle script-readable data), at most 2048
 * characters. Returns the reason a value is refused, or undefined.
 */
export function resultUrlProblem(value: string): string | undefined {
  if (value.length > 2048) return 'must be at most 2048 characters';
  if ([...value].some(isUnsafe)) return 'must not contain white space, control characters or backslashes';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not contain user info';
  if (value.includes('#')) return 'must not contain a fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'must be an https URL (or http on a loopback address)';
}
