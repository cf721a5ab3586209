import type { RecordParams } from '../../lists/index.ts';
import { resolveClientTenant } from '../clients/tenant-rules.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { CreateRoleInput } from './role-body-schemas.ts';
import type { RoleDeps } from './role-deps.ts';
import { roleEntity } from './role-entity.ts';

/**
 * POST /roles (docs/contract.md §6): 201 with the Role, no permissions or members yet. The tenant: the
 * request's, or `tenant_id` under the rules for clients (clients/tenant-rules.ts). A `role_name`
 * taken in that tenant is 409 (the store's marker).
 */
export async function createRole(
  deps: RoleDeps,
  access: ManagementAccess,
  input: CreateRoleInput,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  const { tenant_id, ...fields } = input;
  const tenantId = await resolveClientTenant(deps, access.ctx, tenant_id);
  const record = await deps.roles.create({ ...fields, tenant_id: tenantId }, access.ctx.actor);
  return presentRecord(roleEntity, deps, access, record, params);
}
