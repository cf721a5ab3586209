import * as v from 'valibot';
import { fieldKit, idList, optionalText, text, uuid } from '../kit/fields.ts';

/** The Groups bodies and paths (docs/contract.md §6). Unknown fields are a 400 naming them. Bounds: docs/management-groups.md. */
export const groupFields = fieldKit('reject');

export const GROUP_LIMITS = { name: 255, description: 1024 } as const;

export const CreateGroupBody = groupFields.object({
  group_name: text(GROUP_LIMITS.name),
  group_description: v.optional(optionalText(GROUP_LIMITS.description)),
});
export type CreateGroupInput = v.InferOutput<typeof CreateGroupBody>;

/** PATCH (PUT) merges; `group_description: null` removes it. */
export const UpdateGroupBody = groupFields.object({
  group_name: v.optional(text(GROUP_LIMITS.name)),
  group_description: v.optional(v.nullable(optionalText(GROUP_LIMITS.description))),
});
export type UpdateGroupInput = v.InferOutput<typeof UpdateGroupBody>;

export const GroupPath = groupFields.object({ group_id: uuid });
export const UserGroupsPath = groupFields.object({ user_id: uuid });

/** `{groups: [id]}` (nested groups, a user's groups). */
export const GroupsBody = groupFields.object({ groups: idList('group') });
/** `{roles: [id]}` (group roles). */
export const RolesBody = groupFields.object({ roles: idList('role') });
/** `{users: [id]}` (group members). */
export const UsersBody = groupFields.object({ users: idList('user') });
