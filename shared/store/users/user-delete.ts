import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { HeldPermission } from '../../records/held-permission.ts';
import type { UserRecord } from '../../records/user-record.ts';
import { batchDelete } from '../core/batch-delete.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { toRecord } from '../core/entity.ts';
import { and, equals, exists } from '../core/expression.ts';
import { deleteMarker } from '../core/markers.ts';
import { countWrite } from '../core/reads/collections.ts';
import { queryPage, queryPrefix } from '../core/reads/query-all.ts';
import { sweepPages } from '../core/reads/sweep-pages.ts';
import { withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { deleteItem, type Key } from '../core/writes.ts';
import { removeGroupMemberUnit } from '../rbac/group-links-repository.ts';
import { revokeHeldPermissionUnit } from '../rbac/held-permission-writes.ts';
import { sweepUserRoleLinks } from '../rbac/role-delete.ts';
import { sessionsRepository } from '../sessions/sessions-repository.ts';
import { sweepUserIdentities } from './user-identity-writes.ts';
import { userLoginMarkers } from './user-markers.ts';

/** Refresh tokens read per Query page of the sweep (then deleted 25 per BatchWriteItem). */
const SWEEP_PAGE = 100;

/**
 * Deletes a user in bounded work, in two steps:
 *   1. ONE transaction: the user item (conditioned on the version read, so a concurrent email
 *      change fails it and the delete re-reads; its login-failure count is on it), its uniqueness
 *      markers, its OTP authenticator, its Tenant admin link when it is one (the user's `tenant_admin` mirror) and the tenant's
 *      `COUNT#USERS`. At most 7 items whatever the user holds.
 *   2. The user's refresh tokens (GSI1 `USER#{id}#REFRESH_TOKENS`), page by page, 25 per
 *      BatchWriteItem. They are already dead once step 1 lands (a refresh token of a missing user
 *      is `invalid_grant`), so no transaction spans them and a crash between pages loses nothing:
 *      a later `sweepRefreshTokens` (every delete of an id that no longer exists runs it) finishes.
 * Then, in pages the same way (sweep-pages.ts: one transaction a page, re-runnable): its role
 * member links with the roles' member counts (role-delete.ts `sweepUserRoleLinks`), its group
 * member links with the groups' member counts, and its direct permissions with the scopes' holder
 * counts. Then its User Identities with their markers (user-identity-writes.ts), its User Grants, and
 * its passkeys go and its browser sessions are ended (`now`: their `ended_at`).
 * `load` is the consistent read of the user; undefined → nothing to delete in step 1.
 */
export async function deleteUser(
  db: DynamoDBDocumentClient,
  tableName: string,
  load: () => Promise<UserRecord | undefined>,
  accept: (user: UserRecord) => boolean,
  userId: string,
  now: () => Date,
): Promise<boolean> {
  const deleted = await withRetries(async () => {
    const user = await load();
    if (!user) return false;
    if (!accept(user)) return undefined;
    const markers = userLoginMarkers(user).map((key) => deleteMarker(key, user.id));
    await commitPlan(db, tableName, [
      [
        deleteItem(keys.user(user.id), { condition: and(exists, equals('version', user.version)) }),
        ...markers,
        deleteItem(keys.userOtp(user.id)),
        // Its Tenant admin link (at most one: a user administers only its own tenant), with the user.
        // The mirror on the item read under this version says whether the link exists.
        ...(user.tenant_admin ? [deleteItem(keys.tenantAdmin(user.tenant_id, user.id))] : []),
        countWrite(user.tenant_id, 'USERS', -1),
      ],
    ]);
    return true;
  });
  // Another tenant's user: not ours to touch, not even its tokens.
  if (deleted === undefined) return false;
  await sweepRefreshTokens(db, tableName, userId);
  await sweepUserRoleLinks(db, tableName, userId);
  await sweepUserGroupLinks(db, tableName, userId);
  await sweepUserPermissions(db, tableName, userId);
  // Its identities with their markers, so the provider user may sign in again as a new user.
  await sweepUserIdentities(db, tableName, userId);
  // Browser flows: the user's consents go, and any session still open ends (a session
  // of a missing user is refused anyway: sessions-repository.ts `findSession`).
  await batchDelete(db, tableName, (await queryPrefix(db, tableName, keys.userPartition(userId), keys.consentPrefix)) as unknown as Key[]);
  // Its passkeys (at most MAX_PASSKEYS_PER_USER): none is added once the user item is gone (an add requires it).
  await batchDelete(db, tableName, (await queryPrefix(db, tableName, keys.userPartition(userId), keys.passkeyPrefix)) as unknown as Key[]);
  await sessionsRepository(db, tableName, now).endUserSessions(userId);
  return deleted;
}

/** Links swept per page (each a unit of at most 2 items once the user is gone): one transaction a page. */
const LINK_SWEEP_PAGE = 40;

/**
 * The group-member links of a deleted user (GSI2 `USER#{u}#GROUPS`), page by page: each link item
 * with its group's `aggregations.members`, one transaction per page (sweep-pages.ts). No link is
 * added meanwhile: adding one requires the user's `group_ids` map, gone with the item.
 */
export function sweepUserGroupLinks(db: DynamoDBDocumentClient, tableName: string, userId: string): Promise<number> {
  return sweepPages(db, tableName, { gsi2: keys.userGroups(userId) }, LINK_SWEEP_PAGE, {
    farEnd: (l) => keys.group(String(l.group_id)),
    unit: (l, groupExists) => removeGroupMemberUnit(String(l.group_id), userId, false, groupExists),
  });
}

/**
 * The direct permissions of a deleted user (its partition, `PERMISSION#`), page by page: each item
 * with its scope's holder count on the resource (the user's own count and copy went with it). No
 * permission is added meanwhile: a grant's unit requires the user item.
 */
export function sweepUserPermissions(db: DynamoDBDocumentClient, tableName: string, userId: string): Promise<number> {
  return sweepPages(db, tableName, { partition: keys.userPartition(userId), prefix: keys.permissionPrefix }, LINK_SWEEP_PAGE, {
    farEnd: (p) => keys.resource(String(p.resource_id)),
    unit: (p, resourceExists) => revokeHeldPermissionUnit('user', toRecord<HeldPermission>(p), undefined, { resourceExists }),
  });
}

/** Deletes every refresh token item of a user (GSI1), page by page; idempotent. */
export async function sweepRefreshTokens(db: DynamoDBDocumentClient, tableName: string, userId: string): Promise<number> {
  let removed = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await queryPage(db, {
      TableName: tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'GSI1PK', '#k': 'PK', '#s': 'SK' },
      ExpressionAttributeValues: { ':pk': keys.userRefreshTokens(userId) },
      ProjectionExpression: '#k, #s',
      Limit: SWEEP_PAGE,
      ...(start ? { ExclusiveStartKey: start } : {}),
    });
    await batchDelete(db, tableName, page.items as unknown as Key[]);
    removed += page.items.length;
    start = page.lastEvaluatedKey;
  } while (start);
  return removed;
}
