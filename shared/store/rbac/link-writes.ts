import type { ClientPermission, ClientResourceLink } from '../../records/client-link-records.ts';
import { entity } from '../core/entity.ts';
import { and, type Condition, exists, notExists } from '../core/expression.ts';
import { keys } from '../core/table-keys.ts';
import { deleteItem, type Path, putItem, updateItem, type Write } from '../core/writes.ts';
import { copyWrites, type Holder, type TokenPathChange } from '../token-path/token-copies.ts';

/**
 * The writes every link and permission change is made of. Counters always move together with the
 * items they count, and every change bumps `links_version` on the records at both ends, so a
 * cascade that read them can tell (docs/data-model.md §1).
 */

/**
 * Every link and permission of a client is also an entry of its item's `token_grants` (~40 bytes
 * each), and an item holds at most 400 KB: with the client's own fields (metadata ≤ 16 KB,
 * app_metadata ≤ 64 KB) these caps keep it well inside. Beyond them a change is a 409, like the
 * 500 scopes of a resource.
 */
export const MAX_RESOURCES_PER_CLIENT = 1_000;
export const MAX_PERMISSIONS_PER_CLIENT = 4_000;

/** A change of a client's links or permissions, as its own item sees it. */
export interface ClientChange {
  resources?: number;
  permissions?: number;
  /** What the token path must learn (token-copies.ts): links and permissions added or removed. */
  copies?: readonly TokenPathChange[];
}

/**
 * The client item's part of a link or permission change: its counts and `links_version` (the
 * optimistic lock of docs/data-model.md §1), plus the `token_grants` copy writes of the change
 * (token-copies.ts keeps the copy and its stamp).
 */
export function clientChange(clientId: string, c: ClientChange): Write[] {
  const add: [Path, number][] = [['links_version', 1]];
  if (c.resources) add.push([['aggregations', 'resources'], c.resources]);
  if (c.permissions) add.push([['aggregations', 'permissions'], c.permissions]);
  return [updateItem(keys.client(clientId), { add, condition: exists }), ...copyWrites(c.copies ?? [])];
}

export interface ResourceCounts {
  clients?: number;
  scopes?: number;
  /** Scope id → change of its holder count. */
  holders?: Readonly<Record<string, number>>;
}

export function resourceCounts(resourceId: string, c: ResourceCounts, condition?: Condition): Write {
  const add: [Path, number][] = [['links_version', 1]];
  if (c.clients) add.push([['aggregations', 'clients'], c.clients]);
  if (c.scopes) add.push([['aggregations', 'scopes'], c.scopes]);
  for (const [scopeId, d] of Object.entries(c.holders ?? {})) add.push([['scope_holders', scopeId], d]);
  return updateItem(keys.resource(resourceId), { add, condition: condition ? and(exists, condition) : exists });
}

/** Adds one link: the item, both ends' counts, and the (empty) grants entry of the resource. */
export function linkUnit(link: ClientResourceLink, holder: Holder): Write[] {
  return [
    putItem(linkItem(link), { condition: notExists }),
    resourceCounts(link.resource_id, { clients: 1 }),
    ...clientChange(link.client_id, { resources: 1, copies: [{ kind: 'link-added', holder, resourceId: link.resource_id }] }),
  ];
}

export function linkItem(link: ClientResourceLink) {
  return {
    ...keys.clientLink(link.client_id, link.resource_id),
    GSI2PK: keys.resourceClients(link.resource_id),
    GSI2SK: link.client_id,
    ...entity('ClientResourceLink'),
    ...link,
  };
}

export function permissionItem(p: ClientPermission) {
  return {
    ...keys.clientPermission(p.client_id, p.resource_id, p.scope_id),
    GSI2PK: keys.scopeHolders(p.scope_id),
    GSI2SK: keys.scopeHolder('CLIENT', p.client_id),
    ...entity('ClientPermission'),
    ...p,
  };
}

/** Adds one permission: the item, its scope's holder count (the scope must still exist), the client's count. */
export function grantUnit(p: ClientPermission, holder: Holder): Write[] {
  return [
    putItem(permissionItem(p), { condition: (x) => `attribute_not_exists(${x.name('PK')})` }),
    resourceCounts(p.resource_id, { holders: { [p.scope_id]: 1 } }, (x) => `attribute_exists(${x.name(['scope_names', p.scope_id])})`),
    ...clientChange(p.client_id, {
      permissions: 1,
      copies: [{ kind: 'permission-added', holder, resourceId: p.resource_id, scopeId: p.scope_id }],
    }),
  ];
}

/** Removes one permission and its counts. */
export function revokePermissionUnit(p: ClientPermission, holder: Holder): Write[] {
  return [
    deleteItem(keys.clientPermission(p.client_id, p.resource_id, p.scope_id), { condition: exists }),
    resourceCounts(p.resource_id, { holders: { [p.scope_id]: -1 } }),
    ...clientChange(p.client_id, { permissions: -1, copies: [permissionRemoved(holder, p)] }),
  ];
}

const permissionRemoved = (holder: Holder, p: ClientPermission): TokenPathChange => ({
  kind: 'permission-removed',
  holder,
  resourceId: p.resource_id,
  scopeId: p.scope_id,
});

/**
 * Permissions per unit when a link has more than fit one transaction with the rest: each one is a
 * path in both the resource's and the client's update (commit-plan.ts MAX_PATHS_PER_ITEM).
 */
const PERMISSIONS_PER_UNIT = 40;

/**
 * Removes a client's link to a resource with every permission of the client on it (docs/contract.md §6:
 * revoking a resource also removes the client's permissions on it), fixing all four counts. One
 * unit normally; with more than 40 permissions, the permissions go first in units of their own,
 * so the link (the precondition of a permission) is always the last thing removed.
 */
export function unlinkUnits(holder: Holder, resourceId: string, permissions: readonly ClientPermission[]): Write[][] {
  const clientId = holder.id;
  const batches: ClientPermission[][] = [];
  for (let i = 0; i < permissions.length; i += PERMISSIONS_PER_UNIT) batches.push(permissions.slice(i, i + PERMISSIONS_PER_UNIT));
  const last = batches.pop() ?? [];
  return [
    ...batches.map((b) => [
      ...permissionDeletes(b),
      resourceCounts(resourceId, { holders: holderDeltas(b) }),
      ...clientChange(clientId, { permissions: -b.length, copies: b.map((p) => permissionRemoved(holder, p)) }),
    ]),
    [
      ...permissionDeletes(last),
      deleteItem(keys.clientLink(clientId, resourceId), { condition: exists }),
      resourceCounts(resourceId, { clients: -1, holders: holderDeltas(last) }),
      ...clientChange(clientId, { resources: -1, permissions: -last.length, copies: [{ kind: 'link-removed', holder, resourceId }] }),
    ],
  ];
}

const permissionDeletes = (ps: readonly ClientPermission[]) =>
  ps.map((p) => deleteItem(keys.clientPermission(p.client_id, p.resource_id, p.scope_id), { condition: exists }));

function holderDeltas(ps: readonly ClientPermission[]): Record<string, number> {
  const holders: Record<string, number> = {};
  for (const p of ps) holders[p.scope_id] = (holders[p.scope_id] ?? 0) - 1;
  return holders;
}
