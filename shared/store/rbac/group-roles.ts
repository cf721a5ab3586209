import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../../errors.ts';
import { newAuditFields } from '../../records/common.ts';
import type { GroupRoleLink } from '../../records/group-record.ts';
import { entity, toRecord } from '../core/entity.ts';
import { exists, notExists } from '../core/expression.ts';
import { queryPrefix } from '../core/reads/query-all.ts';
import { getItems } from '../core/reads/read-items.ts';
import { sweepPages } from '../core/reads/sweep-pages.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { checkItem, deleteItem, type Key, keyString, putItem, updateItem, type Write } from '../core/writes.ts';
import { commitLinkChange, LinkPlan } from './link-commit.ts';

/**
 * Group roles (docs/contract.md §6 `/groups/{id}/roles`): `GROUP#{g}` / `ROLE#{r}` (GSI2 `ROLE#{r}#GROUPS` /
 * g). Adding one is ONE transaction whatever the group's size: the link, the group's `role_ids`
 * entry (the token path's copy) and `aggregations.roles`, and a check that the role still exists.
 * Members are not touched: their effective permissions are computed at token time, so adding a role to a group of 10,000 members costs the same 3 items, and a retry of an
 * interrupted call is just the same call (409 if it had landed).
 */
export interface GroupRoles {
  addRoles(groupId: string, roleIds: readonly string[], actor: string): Promise<void>;
  removeRoles(groupId: string, roleIds: readonly string[]): Promise<void>;
  listRoles(groupId: string): Promise<GroupRoleLink[]>;
  /** Deletes the role links of a deleted group (its `role_ids` went with the record), 25 per transaction, re-runnable. */
  sweepRoles(groupId: string): Promise<void>;
}

export function groupRoleItem(link: GroupRoleLink) {
  return {
    ...keys.groupRole(link.group_id, link.role_id),
    GSI2PK: keys.roleGroups(link.role_id),
    GSI2SK: link.group_id,
    ...entity('GroupRole'),
    ...link,
  };
}

/** Group-role links removed per page by a delete sweep (each unit at most 2 items). */
const SWEEP_PAGE = 25;

/**
 * One group-role link removed: the item, and the group's `role_ids` entry and count
 * (`groupExists: false`: the group is gone, its delete sweeping; only the item).
 */
export function removeGroupRoleUnit(groupId: string, roleId: string, options: { groupExists?: boolean } = {}): Write[] {
  return [
    deleteItem(keys.groupRole(groupId, roleId), { condition: exists }),
    ...(options.groupExists === false
      ? []
      : [
          updateItem(keys.group(groupId), {
            remove: [['role_ids', roleId]],
            add: [
              ['links_version', 1],
              [['aggregations', 'roles'], -1],
            ],
            condition: exists,
          }),
        ]),
  ];
}

export function groupRoles(db: DynamoDBDocumentClient, tableName: string, now: () => Date): GroupRoles {
  const readAll = (ks: readonly Key[]) => getItems(db, tableName, ks, now());
  const mustGroup = (found: Map<string, Record<string, unknown>>, groupId: string) => {
    const g = found.get(keyString(keys.group(groupId)));
    // docs/contract.md §8: messages name the path parameter or body field at fault, never the ids sent.
    if (!g) throw notFound('Group not found.');
    return g;
  };
  const list = async (groupId: string) =>
    (await queryPrefix(db, tableName, keys.groupPartition(groupId), keys.groupRolePrefix)).map((i) => toRecord<GroupRoleLink>(i));

  return {
    addRoles: (groupId, roleIds, actor) =>
      commitLinkChange(db, tableName, async (done) => {
        const ids = [...new Set(roleIds)];
        const found = await readAll([keys.group(groupId), ...ids.flatMap((r) => [keys.role(r), keys.groupRole(groupId, r)])]);
        const group = mustGroup(found, groupId);
        for (const r of ids) {
          const role = found.get(keyString(keys.role(r)));
          if (!role || role.tenant_id !== group.tenant_id) throw notFound('body.roles: a role was not found.');
          const existing = found.get(keyString(keys.groupRole(groupId, r)));
          if (existing && !done.has(String(existing.id))) throw conflict('body.roles: a role is already a role of this group.');
        }
        const plan = new LinkPlan();
        const at = now().toISOString();
        for (const r of ids) {
          if (found.has(keyString(keys.groupRole(groupId, r)))) continue;
          const link: GroupRoleLink = {
            id: uuidv7(),
            tenant_id: String(group.tenant_id),
            group_id: groupId,
            role_id: r,
            ...newAuditFields(actor, at),
          };
          plan.add(
            [
              [
                putItem(groupRoleItem(link), { condition: notExists }),
                updateItem(keys.group(groupId), {
                  set: [[['role_ids', r], true]],
                  add: [
                    ['links_version', 1],
                    [['aggregations', 'roles'], 1],
                  ],
                  condition: exists,
                }),
                checkItem(keys.role(r), exists),
              ],
            ],
            link.id,
          );
        }
        return plan;
      }),

    removeRoles: (groupId, roleIds) =>
      commitLinkChange(db, tableName, async (done) => {
        const ids = [...new Set(roleIds)];
        const found = await readAll([keys.group(groupId), ...ids.map((r) => keys.groupRole(groupId, r))]);
        mustGroup(found, groupId);
        const plan = new LinkPlan();
        for (const r of ids) {
          if (!found.has(keyString(keys.groupRole(groupId, r)))) {
            if (done.has(r)) continue;
            throw notFound('body.roles: a role is not a role of this group.');
          }
          plan.add([removeGroupRoleUnit(groupId, r)], r);
        }
        return plan;
      }),

    listRoles: list,

    async sweepRoles(groupId) {
      await sweepPages(db, tableName, { partition: keys.groupPartition(groupId), prefix: keys.groupRolePrefix }, SWEEP_PAGE, {
        unit: (l) => removeGroupRoleUnit(groupId, String(l.role_id), { groupExists: false }),
      });
    },
  };
}
