import * as v from 'valibot';
import { emailAddress, httpUrl, PROFILE_CLAIM_LIMITS, personName } from '../../validation/profile-claims.ts';
import { safeText } from '../../validation/safe-text.ts';
import { bool, fieldKit, freeJson, text, uuid } from '../kit/fields.ts';

/**
 * The Users bodies (docs/contract.md §6, §7.5) and path. The kit's policy: an unknown field is a 400 naming
 * it (`body.emial: unknown field`). Bounds are USER_LIMITS, documented in docs/management-users.md.
 */
export const userFields = fieldKit('reject');

export const USER_LIMITS = {
  email: PROFILE_CLAIM_LIMITS.email,
  username: 128,
  name: PROFILE_CLAIM_LIMITS.name,
  url: PROFILE_CLAIM_LIMITS.url,
  zoneinfo: 64,
  locale: 35,
  addressPart: 255,
  addressFormatted: 1024,
  /** user_metadata as JSON. */
  userMetadataBytes: 16_384,
  /** Shape bound of `password` / `old_password` before the rules (which allow 8 to 128 characters). */
  passwordShape: 1024,
} as const;

/**
 * Username: ASCII letters, digits, `.`, `_`, `-`. No `@` and no leading `+`, so a username can
 * never be read as another user's email or phone number when the password grant looks a login up
 * in all three; ASCII only, so case-insensitive comparison has no Unicode surprises (`İ`, `ß`, ligatures).
 */
const username = v.pipe(
  v.string('must be a string'),
  v.maxLength(USER_LIMITS.username, `must be at most ${USER_LIMITS.username} characters`),
  v.regex(/^[A-Za-z0-9._-]+$/, 'must be 1 or more ASCII letters, digits, ".", "_" or "-"'),
);

/** E.164 (ITU-T): `+`, a non-zero country digit, at most 15 digits in all. */
const phoneNumber = v.pipe(
  v.string('must be a string'),
  v.regex(/^\+[1-9][0-9]{1,14}$/, 'must be an E.164 phone number such as +14155550100'),
);

const isCalendarDay = (y: number, m: number, d: number) => {
  // OIDC Core §5.1: year 0000 means "year not given"; check the day in a leap year then.
  const date = new Date(Date.UTC(y === 0 ? 2000 : y, m - 1, d));
  return date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
};

/** OIDC Core §5.1 birthdate: `YYYY-MM-DD`, `0000-MM-DD` (year withheld) or `YYYY`. */
const birthdate = v.pipe(
  v.string('must be a string'),
  v.regex(/^\d{4}(-\d{2}-\d{2})?$/, 'must be YYYY-MM-DD, 0000-MM-DD or YYYY (OIDC Core §5.1)'),
  v.check(
    (s) => s.length === 4 || isCalendarDay(Number(s.slice(0, 4)), Number(s.slice(5, 7)), Number(s.slice(8, 10))),
    'must be a real calendar date',
  ),
);

const isTimeZone = (s: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: s });
    return true;
  } catch {
    return false;
  }
};

/** OIDC Core §5.1 zoneinfo: an IANA time zone name (`Europe/Paris`), as the platform's Intl knows them. */
const zoneinfo = v.pipe(
  v.string('must be a string'),
  v.maxLength(USER_LIMITS.zoneinfo, `must be at most ${USER_LIMITS.zoneinfo} characters`),
  v.regex(/^[A-Za-z][A-Za-z0-9_+/-]*$/, 'must be an IANA time zone name such as Europe/Paris'),
  v.check(isTimeZone, 'must be an IANA time zone name such as Europe/Paris'),
);

const isLocale = (s: string) => {
  try {
    return Intl.getCanonicalLocales(s).length === 1;
  } catch {
    return false;
  }
};

/** OIDC Core §5.1 locale: a BCP 47 language tag (`en-US`, `fr`). */
const locale = v.pipe(
  v.string('must be a string'),
  v.maxLength(USER_LIMITS.locale, `must be at most ${USER_LIMITS.locale} characters`),
  v.regex(/^[A-Za-z0-9-]+$/, 'must be a BCP 47 language tag such as en-US'),
  v.check(isLocale, 'must be a BCP 47 language tag such as en-US'),
);

const addressLine = (max: number) =>
  v.pipe(v.string('must be a string'), safeText({ multiline: true }), v.maxLength(max, `must be at most ${max} characters`));
const ADDRESS = {
  country: text(USER_LIMITS.addressPart),
  postal_code: text(USER_LIMITS.addressPart),
  region: text(USER_LIMITS.addressPart),
  locality: text(USER_LIMITS.addressPart),
  street_address: addressLine(USER_LIMITS.addressPart),
  formatted: addressLine(USER_LIMITS.addressFormatted),
};
/** OIDC Core §5.1.1 address. */
const address = userFields.object({
  country: v.optional(ADDRESS.country),
  postal_code: v.optional(ADDRESS.postal_code),
  region: v.optional(ADDRESS.region),
  locality: v.optional(ADDRESS.locality),
  street_address: v.optional(ADDRESS.street_address),
  formatted: v.optional(ADDRESS.formatted),
});
/** In a PATCH, `null` on a member removes it. */
const addressPatch = userFields.object({
  country: v.optional(v.nullable(ADDRESS.country)),
  postal_code: v.optional(v.nullable(ADDRESS.postal_code)),
  region: v.optional(v.nullable(ADDRESS.region)),
  locality: v.optional(v.nullable(ADDRESS.locality)),
  street_address: v.optional(v.nullable(ADDRESS.street_address)),
  formatted: v.optional(v.nullable(ADDRESS.formatted)),
});

// The profile claims a federated sign-in copies share their rule with it (shared/validation/profile-claims.ts).
const name = personName;

/** The profile fields (docs/contract.md §6 User). */
const PROFILE = {
  email: emailAddress,
  username,
  phone_number: phoneNumber,
  name,
  given_name: name,
  family_name: name,
  middle_name: name,
  nickname: name,
  picture: httpUrl,
  website: httpUrl,
  gender: name,
  birthdate,
  zoneinfo,
  locale,
  address,
};
type Profile = typeof PROFILE;

const optionalProfile = Object.fromEntries(Object.entries(PROFILE).map(([k, s]) => [k, v.optional(s)])) as {
  [K in keyof Profile]: v.OptionalSchema<Profile[K], undefined>;
};
/** PATCH's "null removes this field". */
const removableProfile = Object.fromEntries(
  Object.entries({ ...PROFILE, address: addressPatch }).map(([k, s]) => [k, v.optional(v.nullable(s))]),
) as {
  [K in keyof Profile]: v.OptionalSchema<v.NullableSchema<K extends 'address' ? typeof addressPatch : Profile[K], undefined>, undefined>;
};

const metadata = {
  email_verified: v.optional(bool),
  phone_verified: v.optional(bool),
  user_metadata: v.optional(freeJson(USER_LIMITS.userMetadataBytes)),
  app_metadata: v.optional(userFields.appMetadata),
};

export const password = v.pipe(
  v.string('must be a string'),
  v.maxLength(USER_LIMITS.passwordShape, `must be at most ${USER_LIMITS.passwordShape} characters`),
);

/** docs/contract.md §7.5 create body; `email` is required unless `username` or `phone_number` is given (user-rules.ts). */
export const CreateUserBody = userFields.object({
  ...optionalProfile,
  ...metadata,
  password: v.optional(password),
  tenant_id: v.optional(uuid),
});
export type CreateUserInput = v.InferOutput<typeof CreateUserBody>;

/** PATCH (PUT) body: merged into the record; `null` removes an optional field. */
export const UpdateUserBody = userFields.object({
  ...removableProfile,
  ...metadata,
  password: v.optional(v.never('is changed with PUT /users/{user_id}/password')),
  tenant_id: v.optional(v.never('cannot be changed: a user stays in its tenant')),
});
export type UpdateUserInput = v.InferOutput<typeof UpdateUserBody>;

/** PUT /users/{user_id}/password (docs/contract.md §6): `old_password` is required when the caller is the user. */
export const SetPasswordBody = userFields.object({ password, old_password: v.optional(password) });
export type SetPasswordInput = v.InferOutput<typeof SetPasswordBody>;

/**
 * POST and DELETE /users/{user_id}/otp: the user's current `password`, required when the caller is
 * the user itself (enroll-user-otp.ts, remove-user-otp.ts); an administrator's DELETE sends none.
 */
export const OtpBody = userFields.object({ password: v.optional(password) });
export type OtpBodyInput = v.InferOutput<typeof OtpBody>;

export const UserPath = userFields.object({ user_id: uuid });
