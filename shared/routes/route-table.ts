import { DOCS_ROUTES } from './docs-routes.ts';
import { FUNCTION_TIMEOUTS, routeGroup } from './function-groups.ts';
import { HEALTH_ROUTES } from './health-routes.ts';
import { MANAGEMENT_ROUTES } from './management-routes.ts';
import { OAUTH_ROUTES } from './oauth-routes.ts';
import { PAGE_ROUTES } from './page-routes.ts';
import type { Route } from './route.ts';

/**
 * The route table: the one place that lists endpoints (docs/design.md §2), assembled from one row file
 * per area. The CDK app builds the REST API, one Lambda per handler and its grants from it; the
 * local server routes requests with it (match-route.ts); the OpenAPI document is generated from
 * it; the HTTP pipeline reads a route's auth rule and scope from it. Adding an endpoint = one row
 * in its area's file plus its handler module.
 */
export const ROUTES: readonly Route[] = [...HEALTH_ROUTES, ...OAUTH_ROUTES, ...MANAGEMENT_ROUTES, ...PAGE_ROUTES, ...DOCS_ROUTES];

/** Distinct handler modules, one Lambda function each. */
export function handlerModules(routes: readonly Route[] = ROUTES): string[] {
  return [...new Set(routes.map((r) => r.handler))];
}

/** The Lambda timeout of a route's function (routes of one handler module share one function and its longest timeout). */
export function functionTimeoutSeconds(handlerModule: string, routes: readonly Route[] = ROUTES): number {
  const own = routes.filter((r) => r.handler === handlerModule);
  if (own.length === 0) throw new Error(`No route uses handler module "${handlerModule}"`);
  return Math.max(...own.map((r) => FUNCTION_TIMEOUTS[routeGroup(r)]));
}
