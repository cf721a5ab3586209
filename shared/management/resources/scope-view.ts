import type { ScopeRecord } from '../../records/scope-record.ts';

/** A Scope as callers see it (spec §2.8, plus `tenant_id`): no `version`. */
export function scopeView(s: ScopeRecord): Record<string, unknown> {
  return {
    id: s.id,
    tenant_id: s.tenant_id,
    resource_id: s.resource_id,
    scope_name: s.scope_name,
    ...(s.scope_description !== undefined ? { scope_description: s.scope_description } : {}),
    created_by: s.created_by,
    created_at: s.created_at,
    updated_by: s.updated_by,
    updated_at: s.updated_at,
  };
}
