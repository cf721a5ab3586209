import type { AttributeDefinition } from '../collection-spec.ts';

/**
 * The audit fields every record carries (docs/contract.md §6). `created_by`/`updated_by` are the caller's
 * `sub`, a UUID (spec §2.2).
 */
export const AUDIT_FIELDS = {
  created_by: 'uuid',
  created_at: 'timestamp',
  updated_by: 'uuid',
  updated_at: 'timestamp',
} as const satisfies Record<string, AttributeDefinition>;
