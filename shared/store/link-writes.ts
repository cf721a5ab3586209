import type { ClientPermission, ClientResourceLink } from '../records/client-link-records.ts';
import { entity } from './entity.ts';
import { and, exists, type Condition } from './expression.ts';
import { keys } from './keys.ts';
import { deleteItem, putItem, updateItem, type Path, type Write } from './writes.ts';

/**
 * The writes every link and permission change is made of. Counters always move together with the
 * items they count, and every change bumps `links_version` on the records at both ends, so a
 * cascade that read them can tell (docs/data-model.md §1).
 */

export interface ClientCounts {
  resources?: number;
  permissions?: number;
}

export function clientCounts(clientId: string, c: ClientCounts): Write {
  const add: [Path, number][] = [['links_version', 1]];
  if (c.resources) add.push([['aggregations', 'resources'], c.resources]);
  if (c.permissions) add.push([['aggregations', 'permissions'], c.permissions]);
  return updateItem(keys.client(clientId), { add, condition: exists });
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
export function grantUnit(p: ClientPermission): Write[] {
  return [
    putItem(permissionItem(p), { condition: (x) => `attribute_not_exists(${x.name('PK')})` }),
    resourceCounts(p.resource_id, { holders: { [p.scope_id]: 1 } }, (x) => `attribute_exists(${x.name(['scope_names', p.scope_id])})`),
    clientCounts(p.client_id, { permissions: 1 }),
  ];
}

/** Removes one permission and its counts. */
export function revokePermissionUnit(p: ClientPermission): Write[] {
  return [
    deleteItem(keys.clientPermission(p.client_id, p.resource_id, p.scope_id), { condition: exists }),
    resourceCounts(p.resource_id, { holders: { [p.scope_id]: -1 } }),
    clientCounts(p.client_id, { permissions: -1 }),
  ];
}

/** Permissions per unit when a link has more than fit one transaction with the rest. */
const PERMISSIONS_PER_UNIT = 90;

/**
 * Removes a client's link to a resource with every permission of the client on it (API.md §6:
 * revoking a resource also removes the client's permissions on it), fixing all four counts. One
 * unit normally; with more than 90 permissions, the permissions go first in units of their own,
 * so the link (the precondition of a permission) is always the last thing removed.
 */
export function unlinkUnits(clientId: string, resourceId: string, permissions: readonly ClientPermission[]): Write[][] {
  const batches: ClientPermission[][] = [];
  for (let i = 0; i < permissions.length; i += PERMISSIONS_PER_UNIT) batches.push(permissions.slice(i, i + PERMISSIONS_PER_UNIT));
  const last = batches.pop() ?? [];
  return [
    ...batches.map((b) => [...permissionDeletes(b), resourceCounts(resourceId, { holders: holderDeltas(b) }), clientCounts(clientId, { permissions: -b.length })]),
    [
      ...permissionDeletes(last),
      deleteItem(keys.clientLink(clientId, resourceId), { condition: exists }),
      resourceCounts(resourceId, { clients: -1, holders: holderDeltas(last) }),
      clientCounts(clientId, { resources: -1, permissions: -last.length }),
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
