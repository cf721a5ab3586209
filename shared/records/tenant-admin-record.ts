import type { AuditFields } from './common.ts';

/**
 * A user of a tenant made its administrator (docs/tenants.md "Tenant admins") at `TENANT#{tenant_id}` /
 * `ADMIN#{user_id}`, GSI2 `USER#{user_id}#ADMIN_OF` / tenant id. The user item carries the mirror
 * `tenant_admin: true`, written in the same transaction, which the token path reads.
 */
export interface TenantAdminRecord extends AuditFields {
  id: string;
  tenant_id: string;
  user_id: string;
}
