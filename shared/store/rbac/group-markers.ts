import { groupNameMarkerValue } from '../../records/group-record.ts';
import { keys } from '../core/table-keys.ts';

/** The `group_name` uniqueness marker of a tenant (compared without case). */
export const groupNameMarker = (tenantId: string, groupName: string) =>
  keys.marker('GROUP_NAME', tenantId, groupNameMarkerValue(groupName));
