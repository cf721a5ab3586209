import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DocumentedHandler } from '#shared/http/http-handler.ts';
import type { RouteSpec } from '#shared/openapi/openapi-document.ts';
import type { Route } from '#shared/routes/route.ts';
import { handlerModules, ROUTES } from '#shared/routes/route-table.ts';
import { PROJECT_ROOT } from '../constructs/service-function.ts';

/**
 * The handler spec of every route (`handler.spec`, attached by `httpHandler`), read by importing
 * each handler module of the route table as the local server does. Importing a handler has no
 * side effect: runtimes, clients and keys are made on the first request.
 */
export async function loadRouteSpecs(routes: readonly Route[] = ROUTES): Promise<(route: Route) => RouteSpec | undefined> {
  const specs = new Map<string, RouteSpec | undefined>();
  for (const module of handlerModules(routes)) {
    const loaded = (await import(pathToFileURL(join(PROJECT_ROOT, `${module}.ts`)).href)) as { handler?: Partial<DocumentedHandler> };
    specs.set(module, loaded.handler?.spec);
  }
  return (route) => specs.get(route.handler);
}
