import { userGroupsCollection, userPermissionsCollection } from '../../lists/index.ts';
import type { PermissionSource } from '../../rbac/effective-permissions.ts';
import { resourceData, scopeData } from '../clients/client-entity.ts';
import { groupData } from '../groups/group-entity.ts';
import { defineEntity, pickView } from '../kit/entity.ts';
import { addLinkedData } from '../kit/linked-data.ts';
import type { RbacDeps } from './rbac-deps.ts';

/** One effective permission of a user (docs/contract.md §7.6). */
export interface EffectivePermissionItem {
  /** The scope's id (no link item stands behind an effective permission). */
  id: string;
  tenant_id: string;
  user_id: string;
  resource_id: string;
  scope_id: string;
  sources: readonly PermissionSource[];
}

/** One group of a user, direct or inherited (docs/contract.md §7.6). */
export interface EffectiveGroupItem {
  /** The group's id. */
  id: string;
  tenant_id: string;
  user_id: string;
  group_id: string;
  direct: boolean;
}

export const userPermissionEntity = defineEntity<EffectivePermissionItem, RbacDeps>({
  noun: 'Permission',
  collection: userPermissionsCollection,
  view: pickView<EffectivePermissionItem>(['id', 'tenant_id', 'user_id', 'resource_id', 'scope_id', 'sources']),
  expand: (deps, views, access) => addLinkedData(deps, views, [resourceData, scopeData], access),
});

export const userGroupEntity = defineEntity<EffectiveGroupItem, RbacDeps>({
  noun: 'Group',
  collection: userGroupsCollection,
  view: pickView<EffectiveGroupItem>(['id', 'tenant_id', 'user_id', 'group_id', 'direct']),
  expand: (deps, views, access) => addLinkedData(deps, views, [groupData], access),
});
