import type { UserLoginKind } from '../../records/user-record.ts';
import { userMarker } from './user-markers.ts';

/**
 * What a login names, by its form alone (the same read whether or not it exists):
 * an email holds `@`, a phone number starts with `+` (E.164), and a username can hold neither
 * (user-body-schemas.ts), so no login can name two users.
 */
export const loginKind = (login: string): UserLoginKind =>
  login.includes('@') ? 'email' : login.startsWith('+') ? 'phone_number' : 'username';

/**
 * The marker a login's lookup reads in a tenant: the identifier normalised as markers hold it
 * (email and username without case). The lockout of a login that names no user counts by it too
 * (login-failures-repository.ts), so every spelling the lookup treats as one login is one count.
 */
export const loginMarker = (tenantId: string, login: string) => userMarker(tenantId, loginKind(login), login);
