import type { AuditFields, KeyValue } from './common.ts';

/** OIDC Core §5.1.1 address claim (docs/contract.md §6 User `address`). */
export interface UserAddress {
  country?: string;
  postal_code?: string;
  region?: string;
  locality?: string;
  street_address?: string;
  formatted?: string;
}

/**
 * The profile fields of a User (docs/contract.md §6), settable on create and modify, and the claims
 * `/userinfo` and ID tokens release by scope (docs/contract.md §7.1, OIDC Core §5.4).
 */
export interface UserProfile {
  email?: string;
  email_verified?: boolean;
  username?: string;
  phone_number?: string;
  phone_verified?: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
  middle_name?: string;
  nickname?: string;
  picture?: string;
  website?: string;
  gender?: string;
  /** OIDC Core §5.1: `YYYY-MM-DD` (or `YYYY`). */
  birthdate?: string;
  zoneinfo?: string;
  locale?: string;
  address?: UserAddress;
}

/**
 * A User (docs/contract.md §6) as stored at `USER#{id}` / `USER` (GSI1 `TENANT#{t}#USERS` / id).
 *
 * Unique per tenant through marker items (keys.marker, docs/design.md §3.7), put and deleted in the
 * same transaction as the record, each naming the user in `target_id`:
 * `UNIQUE#USER_EMAIL#{tenant}#{email lower-cased}`, `UNIQUE#USER_NAME#{tenant}#{username
 * lower-cased}` and `UNIQUE#USER_PHONE#{tenant}#{phone_number}` (userMarkerValue below). The markers
 * serve the `q=(email=...)` style lookups of the list and the login of the password and OTP
 * grants: one GetItem for the marker, one for the user.
 *
 * Beyond docs/contract.md §6 it stores (never handed to a caller, see USER_STORAGE_ONLY):
 * - `password_hash`: argon2id PHC string (docs/contract.md §7.2); absent when the user has no password.
 * - `tokens_revoked_at`: ISO time; every refresh token created before it, and every access or ID
 *   token whose `iat` (whole seconds) is before its whole second, is dead. Blocking, a password
 *   change and "revoke all" set it in the same write as their change: O(1) whatever the number of
 *   tokens (refresh items are deleted later, or expire). Tokens minted in the very second of the
 *   revocation survive it (`iat` has no finer grain): the bound is one second.
 * - `version`: +1 per change (optimistic lock of merges and cascades).
 * - `login_failures`, `login_attempt_at` (epoch ms): the lockout count of docs/contract.md §7.3
 *   (store/login-failures-repository.ts), written by login attempts only.
 * - `otp_enrolled`: whether a TOTP authenticator is enrolled, written in the same transaction as
 *   the authenticator item (store/otp-repository.ts), so a password login knows from the user item
 *   alone whether it must ask for a code (no read for the users without one). Absent on users
 *   stored before the flag existed: unknown, so their authenticator item is read.
 * - `refresh_families`, `live_sessions`: the user's refresh-token families and hosted-page
 *   sessions, oldest first, bounded by the per-user caps (store/user-caps.ts, docs/security.md
 *   "Caps"), written only in the transactions that store a new one.
 * - `identity_count`: how many User Identities the user has (store/users/user-identities-repository.ts),
 *   raised and lowered in the transactions that link and unlink one, so the per-user cap holds under
 *   concurrent links. Absent: none.
 */
export interface UserRecord extends AuditFields, UserProfile {
  id: string;
  tenant_id: string;
  email_verified: boolean;
  phone_verified: boolean;
  user_metadata: Record<string, unknown>;
  app_metadata: KeyValue[];
  blocked: boolean;
  /** ISO time of the last successful login (password, OTP, refresh does not count); null: never. */
  last_login: string | null;
  logins_count: number;
  aggregations: { roles: number; groups: number; permissions: number };
  password_hash?: string;
  tokens_revoked_at?: string;
  otp_enrolled?: boolean;
  /** Mirror of the user's Tenant admin link (tenant-admin-record.ts), written in the link's transaction. */
  tenant_admin?: boolean;
  refresh_families?: string[];
  live_sessions?: string[];
  identity_count?: number;
  /** How many passkeys the user has (store/users/passkeys-repository.ts), moved in the transactions that add and remove one. */
  passkeys_count?: number;
  version: number;
}

/** The profile fields in the order a User shows them (docs/contract.md §6). */
export const USER_PROFILE_FIELDS = [
  'email',
  'email_verified',
  'username',
  'phone_number',
  'phone_verified',
  'name',
  'given_name',
  'family_name',
  'middle_name',
  'nickname',
  'picture',
  'website',
  'gender',
  'birthdate',
  'zoneinfo',
  'locale',
  'address',
] as const satisfies readonly (keyof UserProfile)[];

/** Attributes of the stored item that no caller ever sees (not in USER_VIEW_FIELDS). */
export const USER_STORAGE_ONLY = [
  'password_hash',
  'tokens_revoked_at',
  'otp_enrolled',
  'tenant_admin',
  'version',
  'login_failures',
  'login_attempt_at',
  'refresh_families',
  'live_sessions',
  'identity_count',
  'passkeys_count',
] as const;

/**
 * A User (docs/contract.md §6) as every caller sees it, in this order: an allow-list, so a field added to the
 * record later (as `otp_enrolled` was) stays hidden until someone lists it here.
 */
export const USER_VIEW_FIELDS = [
  'id',
  'tenant_id',
  ...USER_PROFILE_FIELDS,
  'user_metadata',
  'app_metadata',
  'blocked',
  'last_login',
  'logins_count',
  'aggregations',
  'created_by',
  'created_at',
  'updated_by',
  'updated_at',
] as const satisfies readonly (keyof UserRecord)[];

/** The three login identifiers, each unique per tenant (docs/contract.md §6). */
export type UserLoginKind = 'email' | 'username' | 'phone_number';

/**
 * The value a uniqueness marker holds for a login identifier. Email and username compare without
 * case (docs/contract.md §6 says so for email; Auth0 and Keycloak do the same for usernames, so `Alice` and
 * `alice` are one user); a phone number is stored as given (E.164 is checked on input).
 */
export const userMarkerValue = (kind: UserLoginKind, value: string): string => (kind === 'phone_number' ? value : value.toLowerCase());

/** What `create` stores: the profile, the flags a caller may set, and an already hashed password. */
export interface NewUser extends UserProfile {
  id?: string;
  tenant_id: string;
  email_verified?: boolean;
  phone_verified?: boolean;
  user_metadata?: Record<string, unknown>;
  app_metadata?: KeyValue[];
  blocked?: boolean;
  /** argon2id PHC string (the caller hashes; the store never sees a plaintext password). */
  password_hash?: string;
}

/**
 * A merge PATCH of a user (docs/contract.md §6). Objects merge (`address`, `user_metadata`), arrays and
 * scalars replace; `null` on an optional profile field removes it (and frees its marker).
 */
export type UserPatch = {
  [K in keyof UserProfile]?: K extends 'address' ? { [A in keyof UserAddress]?: string | null } | null : UserProfile[K] | null;
} & {
  user_metadata?: Record<string, unknown>;
  app_metadata?: KeyValue[];
};

/** The login identifiers with the field that holds each, in the order a 409 names them. */
export const USER_LOGIN_KINDS: readonly UserLoginKind[] = ['email', 'username', 'phone_number'];
