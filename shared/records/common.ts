/** `app_metadata` / `tenant_metadata` entries (spec §2.2). */
export interface KeyValue {
  key: string;
  value: string;
}

/** API.md §6: every record carries these; `created_by` is the caller's `sub`. */
export interface AuditFields {
  created_by: string;
  created_at: string;
  updated_by: string;
  updated_at: string;
}
