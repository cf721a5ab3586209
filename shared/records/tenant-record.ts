import type { AuditFields, KeyValue } from './common.ts';

/** The tenant every single-tenant deployment and every record without a tenant belongs to. */
export const DEFAULT_TENANT_ID = '00000000-0000-7000-8000-000000000001';

/**
 * A Tenant (docs/contract.md §6). Stored at `TENANT#{id}` / `TENANT`; `tenant_name` is unique through a
 * `UNIQUE#TENANT_NAME#{name}` marker.
 */
export interface TenantRecord extends AuditFields {
  id: string;
  tenant_name: string;
  tenant_description?: string;
  tenant_metadata: KeyValue[];
  /** True only for DEFAULT_TENANT_ID; the default tenant cannot be deleted. */
  is_default: boolean;
  version: number;
}
