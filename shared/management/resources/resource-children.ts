import { isAppError } from '../../errors.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { resourceClientView } from './resource-client-view.ts';
import { scopeView } from './scope-view.ts';

type View = Record<string, unknown>;

/**
 * `expand=all` on resources (spec §4.1, API.md §3): each view gains `scopes` (spec §2.8) and
 * `clients` (its resource-client links, spec §2.9, one level deep: no `client_data`). Called for
 * one page or one record only; two Queries per resource, run in parallel.
 */
export function withResourceChildren(deps: Pick<ResourceDeps, 'scopes' | 'links'>, views: readonly View[]): Promise<View[]> {
  return Promise.all(
    views.map(async (view) => {
      const id = String(view.id);
      const [scopes, links] = await Promise.all([deps.scopes.list(id), deps.links.listForResource(id).catch(goneIsEmpty)]);
      return { ...view, scopes: scopes.map(scopeView), clients: links.map(resourceClientView) };
    }),
  );
}

/** A resource deleted between the page and its children has no children (not a 404 for the list). */
function goneIsEmpty(err: unknown): never[] {
  if (isAppError(err) && err.status === 404) return [];
  throw err;
}
