import type { ClientRecord, TokenGrants } from '../../records/client-record.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import type { RoleRecord } from '../../records/role-record.ts';
import { and, type Condition, equals, exists } from '../core/expression.ts';
import { keys } from '../core/table-keys.ts';
import { type Key, type Path, updateItem, type Write } from '../core/writes.ts';
import { identifierMarkerKey, tokenViewMetadataUpdate, tokenViewOf, updateTokenView } from './resource-token-view.ts';

/**
 * The token path's copies, kept in one place (docs/data-model.md §1 "Copies for the token path").
 * `/token` reads one item per side: the holder's `token_grants` (resource id → { scope id: true })
 * and the resource's `token_view` on its identifier marker. A repository never writes either
 * directly: it declares what changed (`TokenPathChange`) and puts the writes returned here in the
 * same unit as the change itself, so a copy can never disagree with its records after a commit.
 *
 * The guarantees, whoever the holder is:
 * - stamp: every unit that changes a holder's links or permissions raises its `links_version` by
 *   one (the repository's count write), and, when the holder's copy is current, raises
 *   `token_grants_version` by one here, so "copy current" stays `token_grants_version =
 *   links_version`. A copy already behind is left alone (readers fall back to the partition, the
 *   bootstrap rebuilds it): editing it would need entries it may not have;
 * - parent entries: each entry changed requires its parent map, so a change racing the removal of
 *   that map (a link revoked meanwhile) fails its condition and is retried, instead of DynamoDB
 *   refusing the document path;
 * - the resource's `token_view` changes only while its marker still names the resource;
 * - one write per item and unit: `commitPlan` merges it with the unit's other writes of that item
 *   and packs units by their paths (MAX_PATHS_PER_ITEM), so a 50-scope grant is still one
 *   transaction.
 */

/**
 * Who holds links and permissions, and where its copy lives (the item key of the holder). A new
 * kind of holder joins by adding its kind here, nothing else.
 */
export type HolderKind = 'client' | 'role' | 'user';

const HOLDER_ITEMS: Record<HolderKind, (id: string) => Key> = {
  client: (id) => keys.client(id),
  role: (id) => keys.role(id),
  user: (id) => keys.user(id),
};

export interface Holder {
  readonly kind: HolderKind;
  readonly id: string;
  /** Whether its `token_grants` is current (`token_grants_version = links_version`): only then is it kept. */
  readonly copyIsCurrent: boolean;
}

/** Is a holder's `token_grants` current (ClientRecord)? Only then do link and permission changes keep it. */
export const grantsCopyIsCurrent = (c: Pick<ClientRecord, 'token_grants' | 'token_grants_version' | 'links_version'>): boolean =>
  c.token_grants !== undefined && c.token_grants_version === c.links_version;

/** A client as a holder, with whether its copy is current as read. */
export const clientHolder = (client: Pick<ClientRecord, 'id' | 'token_grants' | 'token_grants_version' | 'links_version'>): Holder => ({
  kind: 'client',
  id: client.id,
  copyIsCurrent: grantsCopyIsCurrent(client),
});

/** A role as a holder (its permissions only; roles have no resource links). */
export const roleHolder = (role: Pick<RoleRecord, 'id' | 'token_grants' | 'token_grants_version' | 'links_version'>): Holder => ({
  kind: 'role',
  id: role.id,
  copyIsCurrent: grantsCopyIsCurrent(role),
});

/**
 * A user as the holder of its DIRECT permissions (its roles and groups are read at token time, not
 * copied). Users get their copy (`token_grants`, `token_grants_version`, `links_version`) with
 * their first direct permission (user-permissions-repository.ts).
 */
export const userHolder = (user: {
  id: string;
  token_grants?: ClientRecord['token_grants'];
  token_grants_version?: number;
  links_version?: number;
}): Holder => ({
  kind: 'user',
  id: user.id,
  copyIsCurrent: user.token_grants !== undefined && user.token_grants_version === user.links_version,
});

/** What changed, as the token path sees it. */
export type TokenPathChange =
  | { readonly kind: 'link-added' | 'link-removed'; readonly holder: Holder; readonly resourceId: string }
  | {
      readonly kind: 'permission-added' | 'permission-removed';
      readonly holder: Holder;
      readonly resourceId: string;
      readonly scopeId: string;
    }
  /**
   * A holder without resource links (a role, a user's direct permissions): its whole entry for one
   * resource, as computed from its permissions read under its `links_version` guard. The first
   * permission on a resource has no parent map to add a scope to, so the entry is written whole;
   * no scope left removes it.
   */
  | { readonly kind: 'grants-set'; readonly holder: Holder; readonly resourceId: string; readonly scopeIds: readonly string[] }
  | { readonly kind: 'scope-added' | 'scope-renamed'; readonly resource: ResourceRecord; readonly scopeId: string; readonly name: string }
  | { readonly kind: 'scope-deleted'; readonly resource: ResourceRecord; readonly scopeId: string }
  | { readonly kind: 'resource-changed'; readonly before: ResourceRecord; readonly after: ResourceRecord }
  /**
   * Repairs (store/reconcile-token-views.ts): the holder's whole copy rebuilt from its links and
   * permissions as read at `linksVersion`, written only if none changed since; the resource's
   * whole view rewritten from the record, only while its marker still names it.
   */
  | {
      readonly kind: 'copy-rebuilt';
      readonly holder: Pick<Holder, 'kind' | 'id'>;
      readonly links: Iterable<string>;
      readonly permissions: Iterable<{ readonly resource_id: string; readonly scope_id: string }>;
      readonly linksVersion: number;
    }
  | { readonly kind: 'view-rewritten'; readonly resource: ResourceRecord };

const grantsPath = (resourceId: string, scopeId?: string): Path =>
  scopeId === undefined ? ['token_grants', resourceId] : ['token_grants', resourceId, scopeId];

/** The copy writes (with their guards) of the changes of ONE unit. */
export function copyWrites(changes: readonly TokenPathChange[]): Write[] {
  const writes: Write[] = [];
  const byHolder = new Map<string, { holder: Holder; set: [Path, unknown][]; remove: Path[]; parents: Condition[] }>();
  for (const c of changes) {
    switch (c.kind) {
      case 'link-added':
      case 'link-removed':
      case 'permission-added':
      case 'permission-removed': {
        if (!c.holder.copyIsCurrent) break;
        const k = `${c.holder.kind}#${c.holder.id}`;
        const entry = byHolder.get(k) ?? { holder: c.holder, set: [], remove: [], parents: [] };
        byHolder.set(k, entry);
        const scopeId = c.kind === 'permission-added' || c.kind === 'permission-removed' ? c.scopeId : undefined;
        const path = grantsPath(c.resourceId, scopeId);
        if (c.kind.endsWith('-added')) entry.set.push([path, scopeId === undefined ? {} : true]);
        else entry.remove.push(path);
        entry.parents.push((x) => `attribute_exists(${x.name(scopeId === undefined ? 'token_grants' : ['token_grants', c.resourceId])})`);
        break;
      }
      case 'grants-set': {
        if (!c.holder.copyIsCurrent) break;
        const k = `${c.holder.kind}#${c.holder.id}`;
        const entry = byHolder.get(k) ?? { holder: c.holder, set: [], remove: [], parents: [] };
        byHolder.set(k, entry);
        if (c.scopeIds.length) entry.set.push([grantsPath(c.resourceId), Object.fromEntries(c.scopeIds.map((s) => [s, true]))]);
        else entry.remove.push(grantsPath(c.resourceId));
        entry.parents.push((x) => `attribute_exists(${x.name('token_grants')})`);
        break;
      }
      case 'scope-added':
      case 'scope-renamed':
        writes.push(updateTokenView(c.resource, { set: [[['scope_names', c.scopeId], c.name]] }));
        break;
      case 'scope-deleted':
        writes.push(updateTokenView(c.resource, { remove: [['scope_names', c.scopeId]] }));
        break;
      case 'resource-changed': {
        const w = tokenViewMetadataUpdate(c.before, c.after);
        if (w) writes.push(w);
        break;
      }
      case 'copy-rebuilt':
        writes.push(
          updateItem(HOLDER_ITEMS[c.holder.kind](c.holder.id), {
            set: [
              ['token_grants', grantsOf(c.links, c.permissions)],
              ['token_grants_version', c.linksVersion],
            ],
            condition: equals('links_version', c.linksVersion),
          }),
        );
        break;
      case 'view-rewritten':
        writes.push(
          updateItem(identifierMarkerKey(c.resource), {
            set: [['token_view', tokenViewOf(c.resource)]],
            condition: equals('target_id', c.resource.id),
          }),
        );
        break;
    }
  }
  for (const { holder, set, remove, parents } of byHolder.values()) {
    writes.push(
      updateItem(HOLDER_ITEMS[holder.kind](holder.id), {
        add: [['token_grants_version', 1]],
        set,
        remove,
        condition: and(exists, ...parents),
      }),
    );
  }
  return writes;
}

/** A holder's `token_grants` from its links (resource ids) and permissions (resource id, scope id). */
function grantsOf(
  links: Iterable<string>,
  permissions: Iterable<{ readonly resource_id: string; readonly scope_id: string }>,
): TokenGrants {
  const grants: TokenGrants = Object.fromEntries([...links].map((r) => [r, {}]));
  for (const x of permissions) (grants[x.resource_id] ??= {})[x.scope_id] = true;
  return grants;
}
