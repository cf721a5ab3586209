import { conflict } from '../../errors.ts';
import type { ScopeRecord } from '../../records/scope-record.ts';
import { entity } from '../core/entity.ts';
import { notExists } from '../core/expression.ts';
import { deleteMarker, putMarker } from '../core/markers.ts';
import { keys } from '../core/table-keys.ts';
import { putItem, type Write } from '../core/writes.ts';

export function scopeItem(scope: ScopeRecord) {
  return { ...keys.scope(scope.resource_id, scope.id), ...entity('Scope'), ...scope };
}

/** docs/contract.md §8: names the field, never echoes the name sent. */
export const scopeNameTaken = () => conflict('body.scope_name: the resource already has a scope with this scope_name.');

/** The scope item and its name marker (the resource's maps and count are the caller's). */
export function putScopeWrites(scope: ScopeRecord): Write[] {
  return [
    putItem(scopeItem(scope), { condition: notExists }),
    putMarker(keys.scopeNameMarker(scope.resource_id, scope.scope_name), scope.id, { onTaken: scopeNameTaken }),
  ];
}

export const deleteScopeNameMarker = (resourceId: string, name: string, scopeId: string): Write =>
  deleteMarker(keys.scopeNameMarker(resourceId, name), scopeId);
