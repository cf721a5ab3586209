import type { UserAddress, UserRecord } from '../../records/user-record.ts';

/** The members of the OIDC Core §5.1.1 address claim, in its order. */
const ADDRESS_MEMBERS = ['formatted', 'street_address', 'locality', 'region', 'postal_code', 'country'] as const;

/** The user fields the `profile` scope releases under their own name (OIDC Core §5.4). */
const PROFILE_FIELDS = [
  'name',
  'family_name',
  'given_name',
  'middle_name',
  'nickname',
  'picture',
  'website',
  'gender',
  'zoneinfo',
  'locale',
] as const;

type Claims = Record<string, unknown>;

/** Every claim `/userinfo` can answer (its `fields` names), `sub` first. */
export const USERINFO_CLAIMS = [
  'sub',
  ...PROFILE_FIELDS,
  'preferred_username',
  'birthdate',
  'birthday',
  'updated_at',
  'email',
  'email_verified',
  'address',
  'phone_number',
  'phone_number_verified',
  'phone',
  'phone_verified',
] as const;

const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

/** Sets `name` only when the value is there: a claim without a value is left out (OIDC Core §5.3.2). */
function put(out: Claims, name: string, value: unknown): void {
  if (present(value)) out[name] = value;
}

function addressClaim(address: UserAddress | undefined): Claims | undefined {
  if (!address) return undefined;
  const out: Claims = {};
  for (const m of ADDRESS_MEMBERS) put(out, m, address[m]);
  return Object.keys(out).length ? out : undefined;
}

/**
 * The claims a user's granted scopes release (OIDC Core §5.4), as `/userinfo` answers them and ID
 * tokens carry them (docs/contract.md §7.1). Never `sub`: the caller sets it (it is always there).
 *
 * - `profile`: name, family_name, given_name, middle_name, nickname, preferred_username (the
 *   username), picture, website, gender, birthdate, zoneinfo, locale, updated_at. `profile` (a
 *   profile page URL) is not a User field, so it is never released.
 * - `email`: email, email_verified. `address`: address (only its members that have a value).
 * - `phone`: phone_number, phone_number_verified.
 * - Spec 2.12 names three of them differently; both spellings are released (docs/contract.md §7.1):
 *   `phone` = phone_number, `phone_verified` = phone_number_verified, `birthday` = birthdate.
 * - `updated_at` is the record's ISO 8601 time, as spec 2.12 types it (docs/contract.md §7.6), not OIDC's
 *   NumericDate: this is `/userinfo`'s answer. ID tokens take `idTokenClaims`, which makes it a number.
 * - Only claims that have a value appear (OIDC Core §5.3.2); a `*_verified` flag only with the
 *   address or number it qualifies.
 */
export function userClaims(user: UserRecord, scopes: Iterable<string>): Claims {
  const granted = new Set(scopes);
  const out: Claims = {};
  if (granted.has('profile')) {
    for (const f of PROFILE_FIELDS) put(out, f, user[f]);
    put(out, 'preferred_username', user.username);
    put(out, 'birthdate', user.birthdate);
    put(out, 'birthday', user.birthdate);
    put(out, 'updated_at', user.updated_at);
  }
  if (granted.has('email') && present(user.email)) {
    out.email = user.email;
    out.email_verified = user.email_verified === true;
  }
  if (granted.has('address')) put(out, 'address', addressClaim(user.address));
  if (granted.has('phone') && present(user.phone_number)) {
    const verified = user.phone_verified === true;
    out.phone_number = user.phone_number;
    out.phone_number_verified = verified;
    out.phone = user.phone_number;
    out.phone_verified = verified;
  }
  return out;
}

/**
 * The claims an ID token carries for these scopes: `userClaims`, with `updated_at` as a NumericDate
 * (OIDC Core §5.1: "seconds from 1970-01-01T00:00:00Z"), which a relying party's library checks as
 * a number. `/userinfo` keeps the ISO time docs/contract.md §7.6 pins (docs/tokens.md "ID tokens").
 */
export function idTokenClaims(user: UserRecord, scopes: Iterable<string>): Claims {
  const out = userClaims(user, scopes);
  if (typeof out.updated_at === 'string') {
    const ms = Date.parse(out.updated_at);
    // A stored time that does not parse is left out rather than sent in the wrong type (§5.3.2).
    if (Number.isFinite(ms)) out.updated_at = Math.floor(ms / 1000);
    else delete out.updated_at;
  }
  return out;
}
