import { usersCollection } from '../../lists/index.ts';
import { USER_PROFILE_FIELDS, type UserRecord } from '../../records/user-record.ts';
import { defineEntity, pickView } from '../kit/entity.ts';
import type { UserDeps } from './user-deps.ts';

/**
 * A User (API.md §6) as callers see it: every field of the record except the storage-only ones
 * (USER_STORAGE_ONLY: `password_hash`, `tokens_revoked_at`, `version`, the lockout count), which are simply not in
 * this list, so a field added to the record later stays hidden until someone lists it here.
 */
export const userEntity = defineEntity<UserRecord, UserDeps>({
  noun: 'User',
  collection: usersCollection,
  view: pickView<UserRecord>([
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
  ]),
});
