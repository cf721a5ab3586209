import * as v from 'valibot';
import { fieldKit, idList, optionalText, text, uuid } from '../kit/fields.ts';

/**
 * The Roles bodies and paths (docs/contract.md §6). Unknown fields are rejected (`body.role_nmae: unknown
 * field`). Bounds: ROLE_LIMITS, documented in docs/management-roles.md.
 */
export const roleFields = fieldKit('reject');

export const ROLE_LIMITS = { name: 255, description: 1024 } as const;

export const CreateRoleBody = roleFields.object({
  role_name: text(ROLE_LIMITS.name),
  role_description: v.optional(optionalText(ROLE_LIMITS.description)),
  /** A global caller may create in another tenant (the same rules as for clients and users). */
  tenant_id: v.optional(uuid),
});
export type CreateRoleInput = v.InferOutput<typeof CreateRoleBody>;

/** PATCH / PUT: merge; `role_description: null` removes it. */
export const UpdateRoleBody = roleFields.object({
  role_name: v.optional(text(ROLE_LIMITS.name)),
  role_description: v.optional(v.nullable(optionalText(ROLE_LIMITS.description))),
  tenant_id: v.optional(v.never('cannot be changed: a role stays in its tenant')),
});
export type UpdateRoleInput = v.InferOutput<typeof UpdateRoleBody>;

export const RolePath = roleFields.object({ role_id: uuid });

/** `{users: [user_id]}` of POST / DELETE /roles/{role_id}/members. */
export const RoleMembersBody = roleFields.object({ users: idList('user') });
export type RoleMembersInput = v.InferOutput<typeof RoleMembersBody>;

/** `{roles: [role_id]}` of POST / DELETE /users/{user_id}/roles. */
export const UserRolesBody = roleFields.object({ roles: idList('role') });
export type UserRolesInput = v.InferOutput<typeof UserRolesBody>;
