/** The pinned session cookie's name (flows-plan.md "Session"). */
export const SESSION_COOKIE = 'session';

/**
 * The value of the `session` cookie of a request's `Cookie` header (RFC 6265 §5.4: `name=value`
 * pairs separated by `; `), or undefined. A repeated cookie counts as absent: a browser sends one,
 * and which of two to trust would be a guess.
 */
export function sessionCookie(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  const values = cookieHeader
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${SESSION_COOKIE}=`))
    .map((pair) => pair.slice(SESSION_COOKIE.length + 1));
  return values.length === 1 && values[0] ? values[0] : undefined;
}
