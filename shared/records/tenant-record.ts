import type { AuditFields, KeyValue } from './common.ts';

/** The tenant every single-tenant deployment and every record without a tenant belongs to. */
export const DEFAULT_TENANT_ID = '00000000-0000-7000-8000-000000000001';

/**
 * A Tenant (docs/contract.md §6, docs/tenants.md). Stored at `TENANT#{id}` / `TENANT`; `tenant_name` is
 * unique across the stage through a `UNIQUE#TENANT_NAME#{name}` marker (compared as written, as
 * role names are within a tenant).
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

/** What POST /tenants stores (the store adds id, audit fields, `is_default: false`, version). */
export interface NewTenant {
  tenant_name: string;
  tenant_description?: string;
  tenant_metadata?: KeyValue[];
}

/** A PATCH: absent fields stay; `tenant_description: null` removes it. */
export interface TenantPatch {
  tenant_name?: string;
  tenant_description?: string | null;
  tenant_metadata?: KeyValue[];
}

/** The kinds of records a tenant holds that keep a per-tenant counter: a tenant is deletable only when all are 0. */
export const TENANT_HELD_KINDS = ['clients', 'resources', 'users', 'roles', 'groups', 'identity_providers'] as const;
export type TenantHeldKind = (typeof TENANT_HELD_KINDS)[number];
