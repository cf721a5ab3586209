import { conflict } from '../errors.ts';
import type { ScopeRecord } from '../records/scope-record.ts';
import { entity } from './entity.ts';
import { notExists } from './expression.ts';
import { deleteMarker, putMarker } from './markers.ts';
import { keys } from './table-keys.ts';
import { putItem, type Write } from './writes.ts';

export function scopeItem(scope: ScopeRecord) {
  return { ...keys.scope(scope.resource_id, scope.id), ...entity('Scope'), ...scope };
}

export const scopeNameTaken = (name: string) => () => conflict(`The resource already has a scope named "${name}".`);

/** The scope item and its name marker (the resource's maps and count are the caller's). */
export function putScopeWrites(scope: ScopeRecord): Write[] {
  return [
    putItem(scopeItem(scope), { condition: notExists }),
    putMarker(keys.scopeNameMarker(scope.resource_id, scope.scope_name), scope.id, { onTaken: scopeNameTaken(scope.scope_name) }),
  ];
}

export const deleteScopeNameMarker = (resourceId: string, name: string, scopeId: string): Write =>
  deleteMarker(keys.scopeNameMarker(resourceId, name), scopeId);
