import { MANAGEMENT_SCOPES } from '../routes/management-scopes.ts';

/**
 * docs/contract.md §7.7: a tenant admin holds every management scope except `create:tenants` and
 * `delete:tenants` (stage administration), limited to its own tenant by the management API's tenant
 * rules (a user's token works in its user's tenant only: management-context.ts).
 */
export const TENANT_ADMIN_SCOPES: readonly string[] = MANAGEMENT_SCOPES.filter((s) => s !== 'create:tenants' && s !== 'delete:tenants');

/** What the rule reads of a user: the mirror of its Tenant admin link, on the user item. */
export interface TenantAdminFlag {
  tenant_admin?: boolean | undefined;
}

/** The scope names a tenant admin holds on the management API: TENANT_ADMIN_SCOPES that `scopeNames` (id → name) still has. */
export function tenantAdminScopeNames(user: TenantAdminFlag, scopeNames: Readonly<Record<string, string>>): string[] {
  if (user.tenant_admin !== true) return [];
  const known = new Set(Object.values(scopeNames));
  return TENANT_ADMIN_SCOPES.filter((s) => known.has(s));
}
