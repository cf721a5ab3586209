import type { Access, HttpMethod, Route } from '#shared/routes/route.ts';
import { handlerModules, ROUTES } from '#shared/routes/route-table.ts';

const READ: Access = { table: 'read', kms: [] };
const WRITE: Access = { table: 'readwrite', kms: [] };
const LIST: Access = { table: 'read', kms: ['decrypt'] };
const SECRETS: Access = { table: 'readwrite', kms: ['decrypt', 'encrypt'] };

/**
 * A route table the size the full product is heading for and beyond (docs/contract.md §6 lists users,
 * groups, roles, tenants, identity providers, grants, tickets next to clients and resources): the
 * real ROUTES plus management areas shaped like the existing ones, until there are `routeCount`
 * routes served by `handlerCount` handler modules. Extra routes share handlers the way PATCH and
 * PUT already do. The handler modules do not exist; tests give them stub code.
 */
export function syntheticRoutes(routeCount = 150, handlerCount = 120): Route[] {
  const routes: Route[] = [...ROUTES];
  const add = (method: HttpMethod, path: string, handler: string, access: Access) =>
    routes.push({ method, path, handler, auth: { type: 'bearer', scope: 'read:x' }, access });

  // One area: collection, item, two sub-collections and a sub-item (5 paths, 14 routes).
  const area = (n: number) => {
    const base = `/identity/v1/area${n}`;
    const h = (name: string) => `functions/area${n}/${name}`;
    const item = `${base}/{area_id}`;
    add('GET', base, h('list'), LIST);
    add('POST', base, h('create'), SECRETS);
    add('GET', item, h('get'), READ);
    add('PATCH', item, h('update'), WRITE);
    add('PUT', item, h('replace'), WRITE);
    add('DELETE', item, h('delete'), WRITE);
    add('GET', `${item}/members`, h('list-members'), LIST);
    add('POST', `${item}/members`, h('add-members'), WRITE);
    add('DELETE', `${item}/members`, h('remove-members'), WRITE);
    add('GET', `${item}/members/{member_id}`, h('get-member'), READ);
    add('PATCH', `${item}/members/{member_id}`, h('update-member'), WRITE);
    add('DELETE', `${item}/members/{member_id}`, h('delete-member'), WRITE);
    add('GET', `${item}/settings`, h('get-settings'), READ);
    add('PUT', `${item}/settings`, h('put-settings'), WRITE);
  };
  for (let n = 1; routes.length < routeCount; n++) area(n);
  routes.length = routeCount;

  // Merge handlers (the last ones first, within their area) until exactly `handlerCount` remain.
  let excess = handlerModules(routes).length - handlerCount;
  if (excess < 0) throw new Error(`cannot reach ${handlerCount} handlers with ${routeCount} routes`);
  for (let i = routes.length - 1; i > ROUTES.length && excess > 0; i--) {
    const prev = routes[i - 1]!;
    const r = routes[i]!;
    if (r.handler === prev.handler || dirOf(r.handler) !== dirOf(prev.handler)) continue;
    // Every route of r's handler moves to prev's: one handler fewer, however many routes it had
    // (a real table near 90 handlers leaves too few synthetic routes to merge only unshared ones).
    const merged = r.handler;
    for (let j = ROUTES.length; j < routes.length; j++)
      if (routes[j]!.handler === merged) routes[j] = { ...routes[j]!, handler: prev.handler };
    excess--;
  }
  if (excess > 0) throw new Error(`could not merge handlers down to ${handlerCount}`);
  return routes;
}

const dirOf = (handler: string) => handler.slice(0, handler.lastIndexOf('/'));
