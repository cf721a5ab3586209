import { usersCollection } from '../../lists/index.ts';
import { USER_VIEW_FIELDS, type UserRecord } from '../../records/user-record.ts';
import { defineEntity, pickView } from '../kit/entity.ts';
import { addChildren } from '../kit/linked-data.ts';
import type { UserDeps } from './user-deps.ts';
import { userIdentityEntity } from './user-identities.ts';

/**
 * A User (docs/contract.md §6) as callers see it: USER_VIEW_FIELDS, an allow-list (the storage-only
 * attributes, USER_STORAGE_ONLY, are simply not in it). `expand=all` adds `identities` (docs/contract.md
 * §3: `user.identities`), each as `GET /users/{user_id}/identities` shows it: one Query of the
 * user's partition per user, then one read per distinct provider of the page.
 */
export const userEntity = defineEntity<UserRecord, UserDeps>({
  noun: 'User',
  collection: usersCollection,
  view: pickView<UserRecord>(USER_VIEW_FIELDS),
  expand: (deps, views, access) =>
    addChildren(
      views,
      { identities: async (u) => (await deps.identities.list(String(u.id))).map((i) => userIdentityEntity.view(i, access)) },
      { identities: (links) => userIdentityEntity.expand!(deps, links, access) },
    ),
});
