/** `app_metadata` / `tenant_metadata` entries (spec §2.2). */
export interface KeyValue {
  key: string;
  value: string;
}

/** docs/contract.md §6: every record carries these; `created_by` is the caller's `sub`. */
export interface AuditFields {
  created_by: string;
  created_at: string;
  updated_by: string;
  updated_at: string;
}

/** The audit fields of a record `actor` creates at `at` (ISO time): created and updated alike. */
export const newAuditFields = (actor: string, at: string): AuditFields => ({
  created_by: actor,
  created_at: at,
  updated_by: actor,
  updated_at: at,
});

/**
 * `created_by` of records the service makes itself (bootstrap): the nil UUID (RFC 9562 §5.9),
 * "no caller", so audit fields stay UUIDs as spec §2.2 types them.
 */
export const SYSTEM_ACTOR_ID = '00000000-0000-0000-0000-000000000000';
