import type { AuditFields } from './common.ts';

/**
 * A Scope (spec §2.8) at `RESOURCE#{resource_id}` / `SCOPE#{id}`; `scope_name` is unique within
 * its resource through the marker `RESOURCE#{resource_id}` / `UNIQUE#SCOPE_NAME#{name}`
 * (case-sensitive, RFC 6749 §3.3).
 */
export interface ScopeRecord extends AuditFields {
  id: string;
  tenant_id: string;
  resource_id: string;
  scope_name: string;
  scope_description?: string;
  version: number;
}

export interface NewScope {
  id?: string;
  scope_name: string;
  scope_description?: string;
}

export interface ScopePatch {
  scope_name?: string;
  scope_description?: string;
}
