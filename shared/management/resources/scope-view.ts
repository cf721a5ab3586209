import type { ScopeRecord } from '../../records/scope-record.ts';
import { pickView } from '../kit/entity.ts';

/** A Scope as callers see it (spec §2.8, plus `tenant_id`): no `version`. */
export const scopeView = pickView<ScopeRecord>([
  'id',
  'tenant_id',
  'resource_id',
  'scope_name',
  'scope_description',
  'created_by',
  'created_at',
  'updated_by',
  'updated_at',
]);
