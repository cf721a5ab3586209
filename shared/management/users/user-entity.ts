import { usersCollection } from '../../lists/index.ts';
import { USER_VIEW_FIELDS, type UserRecord } from '../../records/user-record.ts';
import { defineEntity, pickView } from '../kit/entity.ts';
import type { UserDeps } from './user-deps.ts';

/**
 * A User (docs/contract.md §6) as callers see it: USER_VIEW_FIELDS, an allow-list (the storage-only
 * attributes, USER_STORAGE_ONLY, are simply not in it).
 */
export const userEntity = defineEntity<UserRecord, UserDeps>({
  noun: 'User',
  collection: usersCollection,
  view: pickView<UserRecord>(USER_VIEW_FIELDS),
});
