import { boundKey } from '../dpop/bound-token.ts';
import type { Introspection } from './introspect-token.ts';

const iso = (s: number | undefined) => (s === undefined ? undefined : new Date(s * 1000).toISOString());

/**
 * RFC 9449 §6.2: a bound access token is `token_type: DPoP` with `cnf.jkt` (RFC 7800 §3.1), so
 * that a resource server that introspects knows to ask for a proof of that key. A refresh token
 * stays `refresh_token`, with its `cnf` when bound.
 */
function typeAndBinding(r: Extract<Introspection, { active: true }>): { token_type: string; cnf?: { jkt: string } } {
  const jkt = boundKey(r.claims);
  const token_type = r.tokenType ?? (jkt ? 'DPoP' : 'Bearer');
  return jkt ? { token_type, cnf: { jkt } } : { token_type };
}

/**
 * Spec 2.11 / RFC 7662 §2.2 `username`, "a human-readable identifier of the resource owner": a
 * user token's user by the name they log in with (username, else email, else phone number, as
 * spec 4.2 lists them at /token). A client token keeps what it carried before users existed.
 */
function username(r: Extract<Introspection, { active: true }>): { username?: string } {
  const name = r.user ? (r.user.username ?? r.user.email ?? r.user.phone_number) : r.claims.username;
  return typeof name === 'string' ? { username: name } : {};
}

/** Members of each answer, for `fields` (spec 2.11; RFC 7662 §2.2). */
export const TOKENINFO_FIELDS = [
  'active',
  'token_type',
  'client_id',
  'scope',
  'username',
  'exp',
  'iat',
  'nbf',
  'subject',
  'jti',
  'cnf',
] as const;
export const INTROSPECT_FIELDS = [
  'active',
  'scope',
  'client_id',
  'username',
  'token_type',
  'exp',
  'iat',
  'nbf',
  'sub',
  'aud',
  'iss',
  'jti',
  'tenant_id',
  'cnf',
] as const;

/** Spec 2.11 (`/tokeninfo`): ISO timestamps and `subject`. */
export function tokeninfoView(r: Introspection): Record<string, unknown> {
  if (!r.active) return { active: false };
  const c = r.claims;
  const { token_type, cnf } = typeAndBinding(r);
  return {
    active: true,
    token_type,
    client_id: c.client_id,
    scope: c.scope ?? '',
    ...username(r),
    exp: iso(c.exp),
    iat: iso(c.iat),
    nbf: iso(c.nbf),
    subject: c.sub,
    jti: c.jti,
    ...(cnf ? { cnf } : {}),
  };
}

/** RFC 7662 §2.2 (`/introspect`): NumericDates and the registered member names. */
export function introspectView(r: Introspection): Record<string, unknown> {
  if (!r.active) return { active: false };
  const c = r.claims;
  return {
    active: true,
    scope: c.scope ?? '',
    client_id: c.client_id,
    ...username(r),
    ...typeAndBinding(r),
    exp: c.exp,
    iat: c.iat,
    nbf: c.nbf,
    sub: c.sub,
    aud: c.aud,
    iss: c.iss,
    jti: c.jti,
    ...(c.tenant_id ? { tenant_id: c.tenant_id } : {}),
  };
}
