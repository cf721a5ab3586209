import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { GroupLinksRepository } from '../../store/rbac/group-links-repository.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { EntityDeclaration } from '../kit/entity.ts';
import { listChildren } from '../kit/present-record.ts';
import type { GroupDeps } from './group-deps.ts';

/**
 * A link change of a group (members, roles, nested groups): 404 unless the caller sees the group
 * (docs/contract.md §4), then the store's all-or-nothing change.
 */
export async function changeGroupLinks(
  deps: GroupDeps,
  access: ManagementAccess,
  groupId: string,
  change: (links: GroupLinksRepository) => Promise<void>,
): Promise<void> {
  await loadVisible(deps.groups, access.ctx, groupId, 'Group');
  await change(deps.links);
  deps.forgetRbacRecords();
}

/** `GET /groups/{group_id}/{list}`: one link list of a visible group, paged in memory (few direct links). */
export function listGroupLinks<R extends object>(
  entity: EntityDeclaration<R, GroupDeps>,
  deps: GroupDeps,
  access: ManagementAccess,
  groupId: string,
  list: 'members' | 'roles' | 'groups',
  load: (links: GroupLinksRepository) => Promise<readonly R[]>,
  params: ListParams,
): Promise<ListEnvelope> {
  const parent = { repo: deps.groups, id: groupId, noun: 'Group' };
  return listChildren(entity, deps, access, parent, `groups/${groupId}/${list}`, () => load(deps.links), params);
}
