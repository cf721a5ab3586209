import { groupMembersCollection, groupRolesCollection, groupsCollection, nestedGroupsCollection } from '../../lists/index.ts';
import type { GroupMemberLink, GroupRecord, GroupRoleLink, NestedGroupLink } from '../../records/group-record.ts';
import { isVisible } from '../kit/access.ts';
import { defineEntity, pickView } from '../kit/entity.ts';
import { addLinkedData, defineLinkedRecord, distinctIds, loadByIds } from '../kit/linked-data.ts';
import { roleEntity } from '../roles/role-entity.ts';
import { userEntity } from '../users/user-entity.ts';
import type { GroupDeps } from './group-deps.ts';

const AUDIT = ['created_by', 'created_at', 'updated_by', 'updated_at'] as const;

/**
 * A Group (docs/contract.md §6). The token-path copies (`role_ids`, `parent_ids`, `ancestor_ids`, `depth`,
 * `height`) and the versions are not in this list, so they never reach a caller.
 */
export const groupView = pickView<GroupRecord>(['id', 'tenant_id', 'group_name', 'group_description', 'aggregations', ...AUDIT]);

export const groupEntity = defineEntity<GroupRecord, GroupDeps>({ noun: 'Group', collection: groupsCollection, view: groupView });

/**
 * `group_data` (docs/contract.md §7.6): the group a link names (a nested group's child, a user's group), one
 * GetItem per distinct group of the page; another tenant's is `null`.
 */
export const groupData = defineLinkedRecord<{ readonly groups: Pick<GroupDeps['groups'], 'get'> }>({
  idField: 'group_id',
  as: 'group_data',
  async load(deps, links, access) {
    const found = await loadByIds(distinctIds(links, 'group_id'), (id) => deps.groups.get(id));
    return new Map([...found].map(([id, g]) => [id, g && isVisible(access.ctx, g) ? groupView(g) : null]));
  },
});

/** `user_data`: the member, as GET /users/{id} shows it. */
const userData = defineLinkedRecord<GroupDeps>({
  idField: 'user_id',
  as: 'user_data',
  async load(deps, links, access) {
    const found = await loadByIds(distinctIds(links, 'user_id'), (id) => deps.users.get(id));
    return new Map([...found].map(([id, u]) => [id, u && isVisible(access.ctx, u) ? userEntity.view(u, access) : null]));
  },
});

export const nestedGroupEntity = defineEntity<NestedGroupLink, GroupDeps>({
  noun: 'Nested group',
  collection: nestedGroupsCollection,
  view: pickView<NestedGroupLink>(['id', 'tenant_id', 'parent_group_id', 'group_id', ...AUDIT]),
  expand: (deps, views, access) => addLinkedData(deps, views, [groupData], access),
});

export const groupMemberEntity = defineEntity<GroupMemberLink, GroupDeps>({
  noun: 'Group member',
  collection: groupMembersCollection,
  view: pickView<GroupMemberLink>(['id', 'tenant_id', 'group_id', 'user_id', ...AUDIT]),
  expand: (deps, views, access) => addLinkedData(deps, views, [userData], access),
});

/** `role_data`: the role, as GET /roles/{id} shows it. */
const roleData = defineLinkedRecord<GroupDeps>({
  idField: 'role_id',
  as: 'role_data',
  async load(deps, links, access) {
    const found = await loadByIds(distinctIds(links, 'role_id'), (id) => deps.roles.get(id));
    return new Map([...found].map(([id, r]) => [id, r && isVisible(access.ctx, r) ? roleEntity.view(r, access) : null]));
  },
});

export const groupRoleEntity = defineEntity<GroupRoleLink, GroupDeps>({
  noun: 'Group role',
  collection: groupRolesCollection,
  view: pickView<GroupRoleLink>(['id', 'tenant_id', 'group_id', 'role_id', ...AUDIT]),
  expand: (deps, views, access) => addLinkedData(deps, views, [roleData], access),
});
