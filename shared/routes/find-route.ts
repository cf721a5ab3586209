import type { Route } from './route.ts';

/**
 * The lookup of an API Gateway event's route (`httpMethod` + `resource`, the path template) among
 * `routes`: the whole table (shared/http/table-handler.ts) or one area's rows
 * (shared/http/oauth-handler.ts), so a function need not bundle the rows it never serves.
 */
export function routeFinder(routes: readonly Route[]): (method: string, resource: string) => Route {
  const byMethodAndPath = new Map(routes.map((r) => [`${r.method} ${r.path}`, r]));
  return (method, resource) => {
    const route = byMethodAndPath.get(`${method} ${resource}`);
    if (!route) throw new Error(`No route for ${method} ${resource}`);
    return route;
  };
}
