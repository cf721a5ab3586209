// One piece: member, nesting and role links of a group commit through the same link units and counters (docs/rbac.md).
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../../errors.ts';
import { newAuditFields } from '../../records/common.ts';
import type { GroupMemberLink, GroupRecord } from '../../records/group-record.ts';
import type { UserRecord } from '../../records/user-record.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { entity, toRecord } from '../core/entity.ts';
import { type Condition, exists, notExists } from '../core/expression.ts';
import { queryGsi2, queryPrefix } from '../core/reads/query-all.ts';
import { getItem, getItems } from '../core/reads/read-items.ts';
import { sweepPages } from '../core/reads/sweep-pages.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { deleteItem, type Key, keyString, putItem, updateItem, type Write } from '../core/writes.ts';
import { type GroupNesting, groupNesting } from './group-nesting.ts';
import { type GroupRoles, groupRoles } from './group-roles.ts';
import { commitLinkChange, LinkPlan } from './link-commit.ts';

/**
 * Group links: members (one item `GROUP#{g}` / `MEMBER#{u}`, GSI2 `USER#{u}#GROUPS` / g, changed
 * from either end), roles (group-roles.ts) and nested groups (group-nesting.ts). A member change is all-or-nothing
 * (docs/contract.md §6): every id is validated on consistent reads first (unknown or another tenant's → 404,
 * existing link when adding → 409, missing link when removing → 404, nothing written), then each
 * link, the group's `aggregations.members`, and the user's `group_ids` mirror and
 * `aggregations.groups` change in the same transaction (ordered, count-exact chunks above 100
 * items). The link item's own condition makes parallel additions of one member give one success.
 */
export interface GroupLinksRepository extends GroupNesting, GroupRoles {
  addMembers(groupId: string, userIds: readonly string[], actor: string): Promise<void>;
  removeMembers(groupId: string, userIds: readonly string[]): Promise<void>;
  /** The same links from the user's side (POST/DELETE /users/{id}/groups). */
  addUserGroups(userId: string, groupIds: readonly string[], actor: string): Promise<void>;
  removeUserGroups(userId: string, groupIds: readonly string[]): Promise<void>;
  /** The group's member links in user-id order (consistent). 404 if the group is unknown. */
  listMembers(groupId: string): Promise<GroupMemberLink[]>;
  /** A user's direct group links (GSI2, eventually consistent). */
  listUserGroupLinks(userId: string): Promise<GroupMemberLink[]>;
  /** Deletes the member links of a deleted group and their user mirrors, page by page (re-runnable). */
  sweepMembers(groupId: string): Promise<void>;
}

export function memberLinkItem(link: GroupMemberLink) {
  return {
    ...keys.groupMember(link.group_id, link.user_id),
    GSI2PK: keys.userGroups(link.user_id),
    GSI2SK: link.group_id,
    ...entity('GroupMember'),
    ...link,
  };
}

const hasMap =
  (attr: string): Condition =>
  (x) =>
    `attribute_exists(${x.name(attr)})`;

/**
 * Users stored before groups existed have no `group_ids` map, and a document path into a missing map is
 * invalid: one idempotent write gives them an empty one before a link is planned.
 */
async function ensureGroupIds(db: DynamoDBDocumentClient, tableName: string, users: readonly UserRecord[]) {
  const bare = users.filter((u) => !(u as { group_ids?: unknown }).group_ids);
  for (const u of bare) {
    await commitPlan(
      db,
      tableName,
      [
        [
          updateItem(keys.user(u.id), {
            set: [['group_ids', {}]],
            condition: (x) => `${exists(x)} AND attribute_not_exists(${x.name('group_ids')})`,
          }),
        ],
      ],
      { incidental: true },
    ).catch(() => undefined); // already there (a concurrent call), or the user went: the plan's read decides.
  }
}

/** One member link added: the item, the group's count, the user's mirror and count. */
function addMemberUnit(link: GroupMemberLink): Write[] {
  return [
    putItem(memberLinkItem(link), { condition: notExists }),
    updateItem(keys.group(link.group_id), {
      add: [
        ['links_version', 1],
        [['aggregations', 'members'], 1],
      ],
      condition: exists,
    }),
    updateItem(keys.user(link.user_id), {
      set: [[['group_ids', link.group_id], true]],
      add: [[['aggregations', 'groups'], 1]],
      condition: hasMap('group_ids'),
    }),
  ];
}

/**
 * One member link removed: the item, the group's count, the user's `group_ids` entry and count;
 * an end already gone (its delete sweeping) has nothing left to fix.
 */
export function removeGroupMemberUnit(groupId: string, userId: string, userExists: boolean, groupExists = true): Write[] {
  return [
    deleteItem(keys.groupMember(groupId, userId), { condition: exists }),
    ...(groupExists
      ? [
          updateItem(keys.group(groupId), {
            add: [
              ['links_version', 1],
              [['aggregations', 'members'], -1],
            ],
            condition: exists,
          }),
        ]
      : []),
    ...(userExists
      ? [
          updateItem(keys.user(userId), {
            remove: [['group_ids', groupId]],
            add: [[['aggregations', 'groups'], -1]],
            condition: exists,
          }),
        ]
      : []),
  ];
}

const unique = (ids: readonly string[]) => [...new Set(ids)];

/** The end of a member link the request's path names. */
type PathEnd = 'group' | 'user';

/** Member links swept per page when a group is deleted. */
const SWEEP_PAGE = 25;

export function groupLinksRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): GroupLinksRepository {
  const read = async <T>(key: Key) => {
    const item = await getItem(db, tableName, key, now());
    return item ? toRecord<T>(item) : undefined;
  };
  const readMany = async (ks: readonly Key[]) => getItems(db, tableName, ks, now());
  const newLink = (tenantId: string, groupId: string, userId: string, actor: string): GroupMemberLink => {
    const at = now().toISOString();
    return {
      id: uuidv7(),
      tenant_id: tenantId,
      group_id: groupId,
      user_id: userId,
      ...newAuditFields(actor, at),
    };
  };

  /**
   * docs/contract.md §8: messages name the path parameter or body field at fault, never the ids sent. `from`
   * is the end the path names: `group` (`/groups/{id}/members`, body `users`) or `user`
   * (`/users/{id}/groups`, body `groups`).
   */
  const messages = (from: PathEnd) =>
    from === 'group'
      ? {
          group: 'Group not found.',
          user: 'body.users: a user was not found.',
          already: 'body.users: a user is already a member of this group.',
          missing: 'body.users: a user is not a member of this group.',
        }
      : {
          group: 'body.groups: a group was not found.',
          user: 'User not found.',
          already: 'body.groups: the user is already a member of a group.',
          missing: 'body.groups: the user is not a member of a group.',
        };

  /** Validates and plans member additions of (group, user) pairs sharing one end. */
  const planAdd = async (pairs: readonly [string, string][], from: PathEnd, done: ReadonlySet<string>) => {
    const say = messages(from);
    const found = await readMany(pairs.flatMap(([g, u]) => [keys.group(g), keys.user(u), keys.groupMember(g, u)]));
    const plan = new LinkPlan();
    const users: UserRecord[] = [];
    for (const [g, u] of pairs) {
      const gi = found.get(keyString(keys.group(g)));
      const ui = found.get(keyString(keys.user(u)));
      if (!gi) throw notFound(say.group);
      if (!ui) throw notFound(say.user);
      // Ends in two tenants: the body's end is the other tenant's (the caller sees the path's end), and
      // it answers as an unknown id of that end would (docs/contract.md §4: no existence oracle).
      if (ui.tenant_id !== gi.tenant_id) throw notFound(from === 'group' ? say.user : say.group);
      users.push(toRecord<UserRecord>(ui));
      const existing = found.get(keyString(keys.groupMember(g, u)));
      if (existing && !done.has(String(existing.id))) throw conflict(say.already);
    }
    return { plan, users, found };
  };

  const add = (pairs: readonly [string, string][], from: PathEnd, actor: string) =>
    commitLinkChange(db, tableName, async (done) => {
      const { plan, users, found } = await planAdd(pairs, from, done);
      await ensureGroupIds(db, tableName, users);
      for (const [g, u] of pairs) {
        if (found.get(keyString(keys.groupMember(g, u)))) continue;
        const tenant = String(found.get(keyString(keys.group(g)))!.tenant_id);
        const link = newLink(tenant, g, u, actor);
        plan.add([addMemberUnit(link)], link.id);
      }
      return plan;
    });

  const remove = (pairs: readonly [string, string][], from: PathEnd) =>
    commitLinkChange(db, tableName, async (done) => {
      const found = await readMany(pairs.flatMap(([g, u]) => [keys.group(g), keys.user(u), keys.groupMember(g, u)]));
      const plan = new LinkPlan();
      for (const [g, u] of pairs) {
        const mark = `${g}/${u}`;
        if (!found.get(keyString(keys.groupMember(g, u)))) {
          if (done.has(mark)) continue;
          throw notFound(messages(from).missing);
        }
        plan.add([removeGroupMemberUnit(g, u, found.has(keyString(keys.user(u))), found.has(keyString(keys.group(g))))], mark);
      }
      return plan;
    });

  return {
    ...groupNesting(db, tableName, now),
    ...groupRoles(db, tableName, now),

    addMembers: async (groupId, userIds, actor) =>
      add(
        unique(userIds).map((u) => [groupId, u]),
        'group',
        actor,
      ),
    removeMembers: async (groupId, userIds) => {
      if (!(await read<GroupRecord>(keys.group(groupId)))) throw notFound('Group not found.');
      return remove(
        unique(userIds).map((u) => [groupId, u]),
        'group',
      );
    },
    addUserGroups: async (userId, groupIds, actor) => {
      if (!(await read<UserRecord>(keys.user(userId)))) throw notFound('User not found.');
      return add(
        unique(groupIds).map((g) => [g, userId]),
        'user',
        actor,
      );
    },
    removeUserGroups: async (userId, groupIds) => {
      if (!(await read<UserRecord>(keys.user(userId)))) throw notFound('User not found.');
      return remove(
        unique(groupIds).map((g) => [g, userId]),
        'user',
      );
    },

    async listMembers(groupId) {
      const items = await queryPrefix(db, tableName, keys.groupPartition(groupId), keys.groupMemberPrefix);
      if (items.length === 0 && !(await read<GroupRecord>(keys.group(groupId)))) throw notFound('Group not found.');
      return items.map((i) => toRecord<GroupMemberLink>(i));
    },

    listUserGroupLinks: async (userId) =>
      (await queryGsi2(db, tableName, keys.userGroups(userId))).map((i) => toRecord<GroupMemberLink>(i)),

    async sweepMembers(groupId) {
      await sweepPages(db, tableName, { partition: keys.groupPartition(groupId), prefix: keys.groupMemberPrefix }, SWEEP_PAGE, {
        farEnd: (l) => keys.user(String(l.user_id)),
        unit: (l, userExists) => removeGroupMemberUnit(groupId, String(l.user_id), userExists, false),
      });
    },
  };
}
