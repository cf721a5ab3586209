import { type HttpResponse, jsonResponse, NO_STORE } from '../../http/response.ts';
import type { SecretBox } from '../../keys/key-store.ts';
import {
  arraySource,
  type CollectionSource,
  type ListEnvelope,
  type ListParams,
  listCollection,
  mapSource,
  type RecordParams,
  shapeItem,
} from '../../lists/index.ts';
import { wantsChildren } from '../../lists/shape-item.ts';
import { loadVisible, type ManagementAccess, type VisibleSource } from './access.ts';
import type { EntityDeclaration, View } from './entity.ts';
import { carriesSecret, revealSecrets } from './sealed-secret.ts';

/** What the presenter needs of a group's deps. */
export interface PresenterDeps {
  readonly secretBox: SecretBox;
}

/**
 * One record as a response body (spec §4.1): its view, its children under `expand=all` (only when
 * `fields` keeps one), then `fields`, then the secrets still in it opened. `view` overrides the
 * declared view (a create showing a new secret in clear).
 */
export async function presentRecord<R, D extends PresenterDeps>(
  entity: EntityDeclaration<R, D>,
  deps: D,
  access: ManagementAccess,
  record: R,
  params: RecordParams,
  view: View = entity.view(record, access),
): Promise<View> {
  const full = entity.expand && wantsChildren(entity.collection, params) ? ((await entity.expand(deps, [view], access))[0] ?? view) : view;
  const shaped = shapeItem(entity.collection, full, params);
  await revealSecrets([shaped], entity.secrets ?? [], deps.secretBox);
  return shaped;
}

/**
 * A list of records (docs/contract.md §3: q, sort, fields, expand, total_count, offset/limit, cursor) from a
 * source of stored records (a repository's collection, or links already read): the list machinery
 * pages the records, then only the returned page is viewed, expanded and has its secrets opened.
 */
export async function listRecords<R, D extends PresenterDeps>(
  entity: EntityDeclaration<R, D>,
  deps: D,
  access: ManagementAccess,
  source: CollectionSource<R>,
  params: ListParams,
  cursorKey: Buffer,
): Promise<ListEnvelope> {
  const expand = entity.expand;
  const views = mapSource(source, (r) => entity.view(r, access), expand && ((page) => expand(deps, page, access)));
  const envelope = await listCollection({ spec: entity.collection, source: views, params, cursorKey });
  await revealSecrets(envelope.items, entity.secrets ?? [], deps.secretBox);
  return envelope;
}

/** JSON response; `Cache-Control: no-store` whenever a secret is in it (docs/contract.md §2, RFC 6749 §5.1). */
export function recordResponse(entity: Pick<EntityDeclaration<unknown, unknown>, 'secrets'>, status: number, body: View): HttpResponse {
  return jsonResponse(status, body, carriesSecret([body], entity.secrets ?? []) ? NO_STORE : {});
}

/** The same for a list envelope: no-store when any item shows a secret. */
export function listResponse(entity: Pick<EntityDeclaration<unknown, unknown>, 'secrets'>, envelope: ListEnvelope): HttpResponse {
  return jsonResponse(200, envelope, carriesSecret(envelope.items, entity.secrets ?? []) ? NO_STORE : {});
}

/** A parent whose child collection is listed: 404 unless the caller may see it. */
export interface VisibleParent {
  readonly repo: VisibleSource<{ tenant_id: string }>;
  readonly id: string;
  readonly noun: string;
}

/**
 * A parent's children (links, scopes): bounded, read in one Query by `load`, and paged in memory by
 * the list machinery. `path` is the list's path; as the source id it binds cursors to this parent's
 * list (docs/lists.md §5).
 */
export async function listChildren<R extends object, D extends PresenterDeps & { cursorKey: () => Promise<Buffer> }>(
  entity: EntityDeclaration<R, D>,
  deps: D,
  access: ManagementAccess,
  parent: VisibleParent,
  path: string,
  load: () => Promise<readonly R[]>,
  params: ListParams,
): Promise<ListEnvelope> {
  await loadVisible(parent.repo, access.ctx, parent.id, parent.noun);
  return listRecords(entity, deps, access, arraySource(path, await load()), params, await deps.cursorKey());
}
