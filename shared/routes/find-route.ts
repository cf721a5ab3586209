import type { Route } from './route.ts';

/**
 * The lookup of an API Gateway event's route (`httpMethod` + `resource`, the path template) among
 * `routes`: the whole table (shared/http/table-handler.ts) or one area's rows
 * (shared/http/oauth-handler.ts), so a function need not bundle the rows it never serves.
 */
export function routeFinder(routes: readonly Route[]): (method: string, resource: string) => Route {
  const byMethodAndPath = new Map(routes.map((r) => [`${r.method} ${r.path}`, r]));
  return (method, resource) => {
    // HEAD is GET without the content (RFC 9110 §9.3.2): the API serves it on every GET row (match-route.ts).
    const route = byMethodAndPath.get(`${method === 'HEAD' ? 'GET' : method} ${resource}`);
    if (!route) throw new Error(`No route for ${method} ${resource}`);
    return route;
  };
}
