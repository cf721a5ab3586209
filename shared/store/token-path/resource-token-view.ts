import type { AppError } from '../../errors.ts';
import type { ResourceRecord, SigningAlgorithm } from '../../records/resource-record.ts';
import { equals } from '../core/expression.ts';
import { deleteMarker, putMarker } from '../core/markers.ts';
import { keys } from '../core/table-keys.ts';
import { type Key, type Path, updateItem, type Write } from '../core/writes.ts';

/**
 * What `/token` needs of a Resource, stored as `token_view` on its identifier marker
 * `UNIQUE#RESOURCE_ID_URL#{tenant}#{identifier_url}` (docs/data-model.md pattern 2). The marker's
 * key is known from the request alone (the audience), so the token endpoint reads it in the same
 * BatchGetItem as the client, instead of a Query of GSI2 after it. Every write that changes one
 * of these fields on the resource changes the view in the same transaction.
 */
export interface ResourceTokenView {
  id: string;
  tenant_id: string;
  identifier_url: string;
  signing_algorithm: SigningAlgorithm;
  /** HS256 only, SEALED (as on the record). */
  signing_secret?: string;
  token_lifetime: number;
  rbac_enabled: boolean;
  is_system: boolean;
  /** Scope id → name. */
  scope_names: Record<string, string>;
}

/** The view's fields that live in `resource_metadata` (the rest are the id, tenant and scopes). */
const METADATA_FIELDS = ['signing_algorithm', 'signing_secret', 'token_lifetime', 'rbac_enabled'] as const;

export function tokenViewOf(r: ResourceRecord): ResourceTokenView {
  const m = r.resource_metadata;
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    identifier_url: m.identifier_url,
    signing_algorithm: m.signing_algorithm,
    ...(m.signing_secret !== undefined ? { signing_secret: m.signing_secret } : {}),
    token_lifetime: m.token_lifetime,
    rbac_enabled: m.rbac_enabled,
    is_system: m.is_system,
    scope_names: { ...r.scope_names },
  };
}

export const identifierMarkerKey = (r: ResourceRecord): Key =>
  keys.marker('RESOURCE_ID_URL', r.tenant_id, r.resource_metadata.identifier_url);

/** Claims the record's identifier_url (409 via `onTaken` if another resource holds it) with the record's view. */
export function putIdentifierMarker(r: ResourceRecord, onTaken: () => AppError): Write {
  return putMarker(identifierMarkerKey(r), r.id, { onTaken, attributes: { token_view: tokenViewOf(r) } });
}

export const deleteIdentifierMarker = (r: ResourceRecord): Write => deleteMarker(identifierMarkerKey(r), r.id);

/**
 * A change of the view in place. Required: the marker still names the resource; if the resource
 * moved to another identifier meanwhile, this fails and the caller re-reads (RetryableConflict).
 */
export function updateTokenView(r: ResourceRecord, parts: { set?: (readonly [Path, unknown])[]; remove?: Path[] }): Write {
  const set = (parts.set ?? []).map(([p, v]) => [viewPath(p), v] as const);
  const remove = (parts.remove ?? []).map(viewPath);
  return updateItem(identifierMarkerKey(r), { set, remove, condition: equals('target_id', r.id) });
}

const viewPath = (p: Path): Path => ['token_view', ...(typeof p === 'string' ? [p] : p)];

/** The in-place update of the metadata fields that differ between `before` and `after`, if any. */
export function tokenViewMetadataUpdate(before: ResourceRecord, after: ResourceRecord): Write | undefined {
  const set: [Path, unknown][] = [];
  const remove: Path[] = [];
  for (const f of METADATA_FIELDS) {
    const was = before.resource_metadata[f];
    const now = after.resource_metadata[f];
    if (was === now) continue;
    if (now === undefined) remove.push(f);
    else set.push([f, now]);
  }
  return set.length || remove.length ? updateTokenView(before, { set, remove }) : undefined;
}

/** The stored view of a marker item, or undefined when the marker predates views (read the record instead). */
export function tokenViewOfMarker(item: Record<string, unknown>): ResourceTokenView | undefined {
  const v = item.token_view;
  return v && typeof v === 'object' ? (v as ResourceTokenView) : undefined;
}
