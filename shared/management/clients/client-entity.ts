import { clientPermissionsCollection, clientResourcesCollection, clientsCollection } from '../../lists/index.ts';
import type { ClientPermission, ClientResourceLink } from '../../records/client-link-records.ts';
import type { ClientRecord } from '../../records/client-record.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { defineEntity, pickView, type View } from '../kit/entity.ts';
import { addChildren, addLinkedData, defineLinkedRecord, distinctIds, loadByIds } from '../kit/linked-data.ts';
import { resourceView } from '../resources/resource-view.ts';
import { scopeView } from '../resources/scope-view.ts';
import type { ClientDeps } from './client-deps.ts';
import { clientView, NO_SECRET, SEALED } from './client-view.ts';

/**
 * The Clients group's entities (spec §2.2, §2.5, §2.6): a Client, its resource links and its
 * permissions, each declared once and shown by the kit's presenter (kit/present-record.ts).
 */

/** Same reasoning as for changes: a tenant-bound caller never reads a global client's secret (docs/contract.md §4). */
export const mayReadSecret = (access: ManagementAccess, client: ClientRecord): boolean =>
  access.readsKeys && !client.is_public && (access.ctx.isGlobal || !client.is_global);

/**
 * `resource_data` (spec §2.5, §2.6): the linked Resource, one GetItem per distinct resource of the
 * page. Never its signing secret: a `read:clients` caller reads a client's links, not a resource's keys.
 */
export const resourceData = defineLinkedRecord<Pick<ClientDeps, 'resources'>>({
  idField: 'resource_id',
  as: 'resource_data',
  async load(deps, links) {
    const found = await loadByIds(distinctIds(links, 'resource_id'), (id) => deps.resources.get(id));
    return new Map([...found].map(([id, r]) => [id, r ? resourceView(r, false) : null]));
  },
});

/** `scope_data` (spec §2.6): the granted Scope; one Query per distinct resource of the page. */
export const scopeData = defineLinkedRecord<Pick<ClientDeps, 'scopes'>>({
  idField: 'scope_id',
  as: 'scope_data',
  async load(deps, links) {
    const lists = await Promise.all(distinctIds(links, 'resource_id').map((id) => deps.scopes.list(id)));
    return new Map(lists.flat().map((s) => [s.id, scopeView(s)]));
  },
});

const AUDIT = ['created_by', 'created_at', 'updated_by', 'updated_at'] as const;

/** A client-resource link (spec §2.5); `resource_data` under `expand=all`. */
export const clientResourceEntity = defineEntity<ClientResourceLink, ClientDeps>({
  noun: 'Resource link',
  collection: clientResourcesCollection,
  view: pickView<ClientResourceLink>(['id', 'tenant_id', 'client_id', 'resource_id', ...AUDIT]),
  expand: (deps, views, access) => addLinkedData(deps, views, [resourceData], access),
});

/** A client permission (spec §2.6); `resource_data` and `scope_data` under `expand=all`. */
export const clientPermissionEntity = defineEntity<ClientPermission, ClientDeps>({
  noun: 'Permission',
  collection: clientPermissionsCollection,
  view: pickView<ClientPermission>(['id', 'tenant_id', 'client_id', 'resource_id', 'scope_id', ...AUDIT]),
  expand: (deps, views, access) => addLinkedData(deps, views, [resourceData, scopeData], access),
});

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * A Client (spec §2.2). `expand=all` adds its `resources` (§2.5 links) and `permissions` (§2.6),
 * each with its `*_data` as in its own link list: one consistent Query of each client's partition,
 * then one expansion of all the page's links. In creation (id) order.
 */
export const clientEntity = defineEntity<ClientRecord, ClientDeps>({
  noun: 'Client',
  collection: clientsCollection,
  view: (c, access) => clientView(c, mayReadSecret(access, c) ? SEALED : NO_SECRET),
  secrets: [['client_secret']],
  async expand(deps, views, access) {
    // One read per client, shared by its two children.
    const partitions = new Map<string, ReturnType<ClientDeps['readPartition']>>();
    const partition = (v: View) => {
      const id = String(v.id);
      if (!partitions.has(id)) partitions.set(id, deps.readPartition(id));
      return partitions.get(id)!;
    };
    return addChildren(
      views,
      {
        resources: async (v) =>
          [...((await partition(v))?.links.values() ?? [])].sort(byId).map((l) => clientResourceEntity.view(l, access)),
        permissions: async (v) =>
          [...((await partition(v))?.permissions ?? [])].sort(byId).map((p) => clientPermissionEntity.view(p, access)),
      },
      {
        resources: (links) => clientResourceEntity.expand!(deps, links, access),
        permissions: (perms) => clientPermissionEntity.expand!(deps, perms, access),
      },
    );
  },
});
