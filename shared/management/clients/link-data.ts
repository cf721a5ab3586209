import type { ResourceRecord } from '../../records/resource-record.ts';
import type { ScopeRecord } from '../../records/scope-record.ts';
import { resourceView } from '../resources/resource-view.ts';
import { scopeView } from '../resources/scope-view.ts';
import type { ClientDeps } from './client-deps.ts';

type View = Record<string, unknown>;

/**
 * The far-end records of links for `expand=all` (spec §2.5 `resource_data`, §2.6 `scope_data`),
 * loaded for one page only: one GetItem per distinct resource, one Query per distinct resource
 * for its scopes. `resource_data` never carries the resource's signing secret: a `read:clients`
 * caller reads a client's links, not a resource's keys. A far end deleted meanwhile is `null`.
 */
export async function addResourceData(deps: Pick<ClientDeps, 'resources'>, views: View[]): Promise<View[]> {
  const resources = await loadResources(deps, views);
  return views.map((v) => ({ ...v, resource_data: dataOf(resources, String(v.resource_id)) }));
}

export async function addResourceAndScopeData(deps: Pick<ClientDeps, 'resources' | 'scopes'>, views: View[]): Promise<View[]> {
  const [resources, scopes] = await Promise.all([loadResources(deps, views), loadScopes(deps, views)]);
  return views.map((v) => ({
    ...v,
    resource_data: dataOf(resources, String(v.resource_id)),
    scope_data: scopes.get(String(v.scope_id)) ?? null,
  }));
}

async function loadResources(deps: Pick<ClientDeps, 'resources'>, views: readonly View[]): Promise<Map<string, ResourceRecord | undefined>> {
  const ids = [...new Set(views.map((v) => String(v.resource_id)))];
  const records = await Promise.all(ids.map((id) => deps.resources.get(id)));
  return new Map(ids.map((id, i) => [id, records[i]]));
}

async function loadScopes(deps: Pick<ClientDeps, 'scopes'>, views: readonly View[]): Promise<Map<string, View>> {
  const resourceIds = [...new Set(views.map((v) => String(v.resource_id)))];
  const lists: ScopeRecord[][] = await Promise.all(resourceIds.map((id) => deps.scopes.list(id)));
  return new Map(lists.flat().map((s) => [s.id, scopeView(s)]));
}

function dataOf(resources: Map<string, ResourceRecord | undefined>, id: string): View | null {
  const r = resources.get(id);
  return r ? resourceView(r, false) : null;
}
