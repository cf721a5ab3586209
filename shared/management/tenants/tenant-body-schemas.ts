import * as v from 'valibot';
import { fieldKit, idList, optionalText, text, uuid } from '../kit/fields.ts';

/**
 * The Tenants bodies and path (docs/contract.md §6, docs/tenants.md). Unknown fields are rejected
 * (`body.tenant_nmae: unknown field`), `id` and `is_default` included: the store sets them.
 */
export const tenantFields = fieldKit('reject');

/** Bounds, documented in docs/tenants.md; `tenant_metadata` takes the kit's `app_metadata` bounds. */
export const TENANT_LIMITS = { name: 255, description: 1024 } as const;

export const CreateTenantBody = tenantFields.object({
  tenant_name: text(TENANT_LIMITS.name),
  tenant_description: v.optional(optionalText(TENANT_LIMITS.description)),
  tenant_metadata: v.optional(tenantFields.appMetadata),
});
export type CreateTenantInput = v.InferOutput<typeof CreateTenantBody>;

/** PATCH: merge; `tenant_description: null` removes it; `tenant_metadata` replaces the whole list. */
export const UpdateTenantBody = tenantFields.object({
  tenant_name: v.optional(text(TENANT_LIMITS.name)),
  tenant_description: v.optional(v.nullable(optionalText(TENANT_LIMITS.description))),
  tenant_metadata: v.optional(tenantFields.appMetadata),
});
export type UpdateTenantInput = v.InferOutput<typeof UpdateTenantBody>;

export const TenantPath = tenantFields.object({ tenant_id: uuid });

/** `{users: [user_id]}` of POST / DELETE /tenants/{tenant_id}/admins: 1 to 50 ids, checked before any read (docs/contract.md §7.6). */
export const TenantAdminsBody = tenantFields.object({ users: idList('user') });
