import { isAppError } from '../../errors.ts';
import { resourceClientsCollection, resourcesCollection, scopesCollection } from '../../lists/index.ts';
import type { ClientResourceLink } from '../../records/client-link-records.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import type { ScopeRecord } from '../../records/scope-record.ts';
import { clientView } from '../clients/client-view.ts';
import { isVisible } from '../kit/access.ts';
import { defineEntity, pickView } from '../kit/entity.ts';
import { addChildren, addLinkedData, defineLinkedRecord, distinctIds, loadByIds } from '../kit/linked-data.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { resourceView } from './resource-view.ts';
import { scopeView } from './scope-view.ts';

/**
 * The Resources group's entities (spec §2.7, §2.8, §2.9): a Resource, its Scopes and its client
 * links, each declared once and shown by the kit's presenter (kit/present-record.ts).
 */

/** A Scope (spec §2.8). */
export const scopeEntity = defineEntity<ScopeRecord, ResourceDeps>({ noun: 'Scope', collection: scopesCollection, view: scopeView });

/**
 * `client_data` (spec §2.9): the linked Client, never its secret (a `read:resources` caller is not a
 * `read:client_keys` caller). A link to a global client of another tenant is listed (it is part of
 * this resource and counted in its aggregations) but a non-global caller gets `client_data: null`
 * for it (docs/contract.md §4: that client is invisible to it), as for a client deleted meanwhile.
 */
const clientData = defineLinkedRecord<Pick<ResourceDeps, 'clients'>>({
  idField: 'client_id',
  as: 'client_data',
  async load(deps, links, access) {
    const found = await loadByIds(distinctIds(links, 'client_id'), (id) => deps.clients.get(id));
    return new Map([...found].map(([id, c]) => [id, c && isVisible(access.ctx, c) ? clientView(c) : null]));
  },
});

/**
 * A resource-client link (spec §2.9): the stored link seen from the resource's side, always
 * `authorized: true` (a link exists only while the client is authorized; docs/contract.md §6).
 */
export const resourceClientEntity = defineEntity<ClientResourceLink, ResourceDeps>({
  noun: 'Client link',
  collection: resourceClientsCollection,
  view: pickView<ClientResourceLink>(
    ['id', 'tenant_id', 'resource_id', 'client_id', 'created_by', 'created_at', 'updated_by', 'updated_at'],
    { authorized: true },
  ),
  expand: (deps, views, access) => addLinkedData(deps, views, [clientData], access),
});

/** A resource deleted between the page and its children has no children (not a 404 for the list). */
function goneIsEmpty(err: unknown): never[] {
  if (isAppError(err) && err.status === 404) return [];
  throw err;
}

/**
 * A Resource (spec §2.7). `expand=all` adds its `scopes` (spec §2.8) and `clients` (its links,
 * spec §2.9, each with `client_data` as in `GET /resources/{id}/clients`): two Queries per
 * resource, in parallel, then one expansion of all the page's links.
 */
export const resourceEntity = defineEntity<ResourceRecord, ResourceDeps>({
  noun: 'Resource',
  collection: resourcesCollection,
  view: (r, access) => resourceView(r, access.readsKeys),
  secrets: [['resource_metadata', 'signing_secret']],
  expand: (deps, views, access) =>
    addChildren(
      views,
      {
        scopes: async (v) => (await deps.scopes.list(String(v.id))).map((s) => scopeEntity.view(s, access)),
        clients: async (v) =>
          (await deps.links.listForResource(String(v.id)).catch(goneIsEmpty)).map((l) => resourceClientEntity.view(l, access)),
      },
      { clients: (links) => resourceClientEntity.expand!(deps, links, access) },
    ),
});
