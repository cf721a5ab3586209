import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RoleMember, RolePermission } from '../../records/role-record.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { toRecord } from '../core/entity.ts';
import { queryPage } from '../core/reads/query-all.ts';
import { getItems } from '../core/reads/read-items.ts';
import { sweepPages } from '../core/reads/sweep-pages.ts';
import { withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { keyString, type Write } from '../core/writes.ts';
import { removeGroupRoleUnit } from './group-roles.ts';
import { revokeHeldPermissionUnit } from './held-permission-writes.ts';
import { removeMemberUnit } from './role-link-writes.ts';

/**
 * Links swept per page: each is a unit of at most 2 items (the link and the user or the
 * resource), so a page is at most one transaction (commit-plan.ts packs them).
 */
export const ROLE_SWEEP_PAGE = 40;

/**
 * Step 2 of a role delete: its member and permission items, page by page, each page one
 * transaction that also removes the users' `role_ids` entries and fixes the users' and scopes'
 * counts. Runs after the role item is gone (step 1, roles-repository.ts), so nothing adds links
 * meanwhile (a link unit requires the role item) and the role grants nothing already: a crash
 * between pages loses nothing, and a later delete of the same id (a 404 that still sweeps) finishes.
 * Returns how many links went.
 */
export async function sweepRoleLinks(db: DynamoDBDocumentClient, tableName: string, roleId: string, now: () => Date): Promise<number> {
  let removed = 0;
  for (;;) {
    const n = await withRetries(async () => {
      const page = await queryPage(db, {
        TableName: tableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'PK' },
        ExpressionAttributeValues: { ':pk': keys.rolePartition(roleId) },
        ConsistentRead: true,
        Limit: ROLE_SWEEP_PAGE,
      });
      const links = page.items.filter((i) => i.type === 'RoleMember' || i.type === 'RolePermission');
      // Links sort before the record's SK `ROLE`, so a page without links means none are left.
      if (links.length === 0) return 0;
      // Which far ends still exist: a gone user or resource has no count or mirror left to fix.
      const ends = await getItems(
        db,
        tableName,
        links.map((l) => (l.type === 'RoleMember' ? keys.user(String(l.user_id)) : keys.resource(String(l.resource_id)))),
        now(),
      );
      const units: Write[][] = links.map((l) => {
        if (l.type === 'RoleMember') {
          const m = toRecord<RoleMember>(l);
          return removeMemberUnit(roleId, m.user_id, { roleExists: false, userExists: ends.has(keyString(keys.user(m.user_id))) });
        }
        const p = toRecord<RolePermission>(l);
        return revokeHeldPermissionUnit('role', p, undefined, { resourceExists: ends.has(keyString(keys.resource(p.resource_id))) });
      });
      await commitPlan(db, tableName, units);
      return links.length;
    });
    if (n === 0) return removed;
    removed += n;
  }
}

/**
 * The group-role links of a deleted role (GSI2 `ROLE#{r}#GROUPS`), page by page: each link item
 * goes with its group's `role_ids` entry and `aggregations.roles`, one transaction per page
 * (sweep-pages.ts: re-read consistently, re-runnable). Runs after the role item is gone, so no link
 * is added meanwhile (adding one checks the role exists in its transaction).
 */
export function sweepRoleGroupLinks(db: DynamoDBDocumentClient, tableName: string, roleId: string): Promise<number> {
  return sweepPages(db, tableName, { gsi2: keys.roleGroups(roleId) }, ROLE_SWEEP_PAGE, {
    farEnd: (l) => keys.group(String(l.group_id)),
    unit: (l, groupExists) => removeGroupRoleUnit(String(l.group_id), roleId, { groupExists }),
  });
}

/**
 * The role links of a deleted user (GSI2 `USER#{u}#ROLES`), page by page: each link item goes with
 * its role's member count, one transaction per page (sweep-pages.ts). Runs after the user item is
 * gone (user-delete.ts), so no link is added meanwhile (a link unit requires the user's
 * `role_ids`); re-run by every delete of an id with no user.
 */
export function sweepUserRoleLinks(db: DynamoDBDocumentClient, tableName: string, userId: string): Promise<number> {
  return sweepPages(db, tableName, { gsi2: keys.userRoles(userId) }, ROLE_SWEEP_PAGE, {
    farEnd: (l) => keys.role(String(l.role_id)),
    unit: (l, roleExists) => removeMemberUnit(String(l.role_id), userId, { userExists: false, roleExists }),
  });
}
