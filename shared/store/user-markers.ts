import { type UserLoginKind, userMarkerValue } from '../records/user-record.ts';
import { keys, type MarkerKind } from './table-keys.ts';

const MARKER_KIND: Record<UserLoginKind, MarkerKind> = { email: 'USER_EMAIL', username: 'USER_NAME', phone_number: 'USER_PHONE' };

/** The uniqueness marker of one login identifier of a user in a tenant (email and username without case). */
export const userMarker = (tenantId: string, kind: UserLoginKind, value: string) =>
  keys.marker(MARKER_KIND[kind], tenantId, userMarkerValue(kind, value));
