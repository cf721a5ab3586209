import type { Route } from './route.ts';
import { ROUTES } from './route-table.ts';

const byMethodAndPath = new Map(ROUTES.map((r) => [`${r.method} ${r.path}`, r]));

/** The route of an API Gateway event (`httpMethod` + `resource`, the path template). */
export function findRoute(method: string, resource: string): Route {
  const route = byMethodAndPath.get(`${method} ${resource}`);
  if (!route) throw new Error(`No route for ${method} ${resource}`);
  return route;
}
