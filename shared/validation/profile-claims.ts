import * as v from 'valibot';
import { safeText } from './safe-text.ts';

/**
 * The rules of the user profile fields a federated sign-in copies from a provider's claims
 * (docs/contract.md §7.7): the Users API's create body (shared/management/users/user-body-schemas.ts)
 * and the federated-user use case hold a value to the same rule, and the token function, which
 * runs that use case for token exchange, carries none of the management API.
 */
export const PROFILE_CLAIM_LIMITS = {
  /** RFC 5321 §4.5.3.1.3: a path holds at most 256 octets, so an address at most 254. */
  email: 254,
  /** Names, nickname, gender. */
  name: 255,
  /** picture, website. */
  url: 2048,
} as const;

/**
 * Email: one `@`, no white space, a dot in the domain (what Auth0 and Keycloak accept in practice;
 * RFC 5322's full grammar admits quoted forms nobody can log in with). Compared without case, so
 * printable ASCII only: Unicode case folding would make look-alikes one address (`\u212A` KELVIN
 * SIGN lower-cases to `k`) or keep homographs apart (fullwidth `ａ`). An internationalized domain
 * is given in its `xn--` form.
 */
export const emailAddress = v.pipe(
  v.string('must be a string'),
  safeText(),
  v.maxLength(PROFILE_CLAIM_LIMITS.email, `must be at most ${PROFILE_CLAIM_LIMITS.email} characters`),
  v.regex(/^[!-?A-~]+@[!-?A-~]+\.[!-?A-~]+$/, 'must be an email address (printable ASCII; an internationalized domain in its xn-- form)'),
);

/** A name (name, given_name, family_name, ...): non-blank text of docs/contract.md §8's characters. */
export const personName = v.pipe(
  v.string('must be a string'),
  safeText(),
  v.maxLength(PROFILE_CLAIM_LIMITS.name, `must be at most ${PROFILE_CLAIM_LIMITS.name} characters`),
);

/** picture, website: an absolute http(s) URL. */
export const httpUrl = v.pipe(
  v.string('must be a string'),
  safeText(),
  v.maxLength(PROFILE_CLAIM_LIMITS.url, `must be at most ${PROFILE_CLAIM_LIMITS.url} characters`),
  v.check((s) => URL.canParse(s) && /^https?:\/\//i.test(s), 'must be an absolute http or https URL'),
);
