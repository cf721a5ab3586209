import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../../errors.ts';
import type { PermissionRequest } from '../../records/client-link-records.ts';
import { newAuditFields } from '../../records/common.ts';
import type { RoleMember, RolePermission, RoleRecord } from '../../records/role-record.ts';
import type { UserRecord } from '../../records/user-record.ts';
import { toRecord } from '../core/entity.ts';
import { queryGsi2, queryPrefix } from '../core/reads/query-all.ts';
import { getItems } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { keyString } from '../core/writes.ts';
import { heldPermissions } from './held-permissions.ts';
import { commitLinkChange, LinkPlan } from './link-commit.ts';
import { addMemberUnit, removeMemberUnit } from './role-link-writes.ts';

/**
 * A role's links (docs/contract.md §6; docs/management-roles.md): its permissions and its members, the
 * member links from either end. Every change is all-or-nothing over the whole body through
 * `commitLinkChange`: validated on consistent reads (404 unknown id, 409 existing link when
 * adding, 404 missing link when removing, 400 a scope not of its resource), then committed with
 * the counts and mirrors of both ends in the same transaction.
 */
export interface RoleLinksRepository {
  grantPermissions(roleId: string, permissions: readonly PermissionRequest[], actor: string): Promise<void>;
  revokePermissions(roleId: string, permissions: readonly PermissionRequest[]): Promise<void>;
  /** The role's permissions in (resource, scope) order: one consistent Query. */
  listPermissions(roleId: string): Promise<RolePermission[]>;
  /** `POST /roles/{r}/members`: users of the role's tenant. */
  addMembers(roleId: string, userIds: readonly string[], actor: string): Promise<void>;
  removeMembers(roleId: string, userIds: readonly string[]): Promise<void>;
  /** The role's member links: one consistent Query. */
  listMembers(roleId: string): Promise<RoleMember[]>;
  /** `POST /users/{u}/roles`: roles of the user's tenant; the same link items as addMembers. */
  addRolesToUser(userId: string, roleIds: readonly string[], actor: string): Promise<void>;
  removeRolesFromUser(userId: string, roleIds: readonly string[]): Promise<void>;
  /** The user's role links (GSI2 `USER#{u}#ROLES`). */
  listRolesOfUser(userId: string): Promise<RoleMember[]>;
}

const memberMark = (roleId: string, userId: string) => `${roleId}#${userId}`;

type LinkField = 'users' | 'roles';

export function roleLinksRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): RoleLinksRepository {
  const records = async <T>(ks: readonly { PK: string; SK: string }[]) => {
    const found = await getItems(db, tableName, ks, now());
    return (k: { PK: string; SK: string }) => {
      const item = found.get(keyString(k));
      return item ? toRecord<T>(item) : undefined;
    };
  };
  const mustRole = async (roleId: string) => {
    const role = (await records<RoleRecord>([keys.role(roleId)]))(keys.role(roleId));
    // docs/contract.md §8: messages name the path parameter or body field at fault, never the ids sent.
    if (!role) throw notFound('Role not found.');
    return role;
  };
  const mustUser = async (userId: string) => {
    const user = (await records<UserRecord>([keys.user(userId)]))(keys.user(userId));
    if (!user) throw notFound('User not found.');
    return user;
  };
  const permissions = heldPermissions(db, tableName, now, 'role');

  /**
   * A user's `role_ids` map must exist before an entry is set in it (DynamoDB refuses a path into
   * a missing map). Users made before roles have none: give them an empty one, outside the link's
   * transaction (an empty map changes nothing anyone reads), only if still missing.
   */
  const ensureRoleIds = async (users: readonly UserRecord[]) => {
    for (const u of users) {
      if ((u as UserRecord & { role_ids?: unknown }).role_ids !== undefined) continue;
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(u.id),
            UpdateExpression: 'SET #m = :empty',
            ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#m)',
            ExpressionAttributeNames: { '#m': 'role_ids' },
            ExpressionAttributeValues: { ':empty': {} },
          }),
        );
      } catch (err) {
        if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') translateError(err);
      }
    }
  };

  /**
   * The body field a link change names in its messages: `users` of `/roles/{id}/users`, `roles`
   * of `/users/{id}/roles` (the path's end is the one record).
   */
  const already = (field: LinkField) =>
    conflict(field === 'users' ? 'body.users: a user already holds this role.' : 'body.roles: a role is already held by this user.');
  const missing = (field: LinkField) =>
    notFound(field === 'users' ? 'body.users: a user does not hold this role.' : 'body.roles: a role is not held by this user.');

  /** Adds member links (role, user) not yet there: 409 for one that is (unless this call made it). */
  const addLinks = async (pairs: readonly [RoleRecord, UserRecord][], field: LinkField, actor: string, done: ReadonlySet<string>) => {
    const existing = await records<RoleMember>(pairs.map(([r, u]) => keys.roleMember(r.id, u.id)));
    const plan = new LinkPlan();
    const at = now().toISOString();
    for (const [role, user] of pairs) {
      if (existing(keys.roleMember(role.id, user.id))) {
        if (done.has(memberMark(role.id, user.id))) continue;
        throw already(field);
      }
      const link: RoleMember = {
        id: uuidv7(),
        tenant_id: role.tenant_id,
        role_id: role.id,
        user_id: user.id,
        ...newAuditFields(actor, at),
      };
      plan.add([addMemberUnit(link)], memberMark(role.id, user.id));
    }
    await ensureRoleIds(pairs.map(([, u]) => u));
    return plan;
  };

  /** Removes member links (role id, user id): 404 for one that is missing (unless this call removed it). */
  const removeLinks = async (pairs: readonly [string, string][], field: LinkField, done: ReadonlySet<string>) => {
    const existing = await records<RoleMember>(pairs.map(([r, u]) => keys.roleMember(r, u)));
    const users = await records<UserRecord>(pairs.map(([, u]) => keys.user(u)));
    const plan = new LinkPlan();
    for (const [roleId, userId] of pairs) {
      if (!existing(keys.roleMember(roleId, userId))) {
        if (done.has(memberMark(roleId, userId))) continue;
        throw missing(field);
      }
      plan.add([removeMemberUnit(roleId, userId, { userExists: users(keys.user(userId)) !== undefined })], memberMark(roleId, userId));
    }
    return plan;
  };

  return {
    grantPermissions: (roleId, requests, actor) => permissions.grant(roleId, requests, actor),
    revokePermissions: (roleId, requests) => permissions.revoke(roleId, requests),
    listPermissions: async (roleId) => (await permissions.list(roleId)) as RolePermission[],

    addMembers: (roleId, userIds, actor) =>
      commitLinkChange(db, tableName, async (done) => {
        const role = await mustRole(roleId);
        const ids = [...new Set(userIds)];
        const user = await records<UserRecord>(ids.map(keys.user));
        const pairs = ids.map((id): [RoleRecord, UserRecord] => {
          const u = user(keys.user(id));
          if (!u || u.tenant_id !== role.tenant_id) throw notFound('body.users: a user was not found.');
          return [role, u];
        });
        return addLinks(pairs, 'users', actor, done);
      }),

    removeMembers: (roleId, userIds) =>
      commitLinkChange(db, tableName, async (done) => {
        await mustRole(roleId);
        return removeLinks(
          [...new Set(userIds)].map((u) => [roleId, u]),
          'users',
          done,
        );
      }),

    async listMembers(roleId) {
      await mustRole(roleId);
      return (await queryPrefix(db, tableName, keys.rolePartition(roleId), keys.roleMemberPrefix)).map((i) => toRecord<RoleMember>(i));
    },

    addRolesToUser: (userId, roleIds, actor) =>
      commitLinkChange(db, tableName, async (done) => {
        const user = await mustUser(userId);
        const ids = [...new Set(roleIds)];
        const role = await records<RoleRecord>(ids.map(keys.role));
        const pairs = ids.map((id): [RoleRecord, UserRecord] => {
          const r = role(keys.role(id));
          if (!r || r.tenant_id !== user.tenant_id) throw notFound('body.roles: a role was not found.');
          return [r, user];
        });
        return addLinks(pairs, 'roles', actor, done);
      }),

    removeRolesFromUser: (userId, roleIds) =>
      commitLinkChange(db, tableName, async (done) => {
        await mustUser(userId);
        return removeLinks(
          [...new Set(roleIds)].map((r) => [r, userId]),
          'roles',
          done,
        );
      }),

    async listRolesOfUser(userId) {
      await mustUser(userId);
      const links = (await queryGsi2(db, tableName, keys.userRoles(userId))).map((i) => toRecord<RoleMember>(i));
      return links.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
  };
}
