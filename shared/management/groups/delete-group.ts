import { notFound } from '../../errors.ts';
import { isVisible, type ManagementAccess } from '../kit/access.ts';
import type { GroupDeps } from './group-deps.ts';

/**
 * DELETE /groups/{group_id}: 204 (docs/contract.md §6). Record, marker and count in one transaction, then
 * its links and the mirrors on users and groups in bounded pages (store/group-delete.ts). Another
 * tenant's group: 404, nothing touched. A repeat of an interrupted delete is a 404 that still
 * finishes the sweep.
 */
export async function deleteGroup(deps: GroupDeps, access: ManagementAccess, groupId: string): Promise<void> {
  const deleted = await deps.groups.delete(groupId, (g) => isVisible(access.ctx, g));
  deps.forgetRbacRecords();
  if (!deleted) throw notFound('Group not found.');
}
