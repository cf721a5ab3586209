import { NestedStack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { routeGroup } from '#shared/routes/function-groups.ts';
import type { Route } from '#shared/routes/route.ts';

export interface RouteAreasProps {
  /** The REST API the areas add their resources and methods to. */
  readonly api: apigw.RestApi;
  readonly stageName: string;
  readonly routes: readonly Route[];
  /** The integration of a route's function. */
  readonly integrationOf: (route: Route) => apigw.Integration;
  /** The integration of the 404/405 function (functions/http/fallback.ts). */
  readonly fallback: apigw.Integration;
  readonly requestValidator: apigw.IRequestValidator;
}

export interface RouteAreas {
  /** The nested stack of each API area (apiAreaOf), holding its resources and methods. */
  readonly areas: ReadonlyMap<string, NestedStack>;
  /** The method of each route. */
  readonly routeMethods: ReadonlyMap<Route, apigw.Method>;
  /** The HEAD method beside each GET route (RFC 9110 §9.3.2), by that route. */
  readonly headMethods: ReadonlyMap<Route, apigw.Method>;
  /** The `ANY` method of each route path, answering the methods the path does not serve. */
  readonly fallbackMethods: readonly apigw.Method[];
}

/**
 * Resources and methods go to one nested stack per API area (apiAreaOf), sharing one REST API: a
 * stack holds 500 resources, and paths and methods are most of an API's (docs/deploy.md "Resource
 * budget"). Path segments that several areas share are made in `scope`'s stack.
 */
export function addRouteAreas(scope: Construct, props: RouteAreasProps): RouteAreas {
  const { api: restApi, stageName, routes } = props;
  const routeMethods = new Map<Route, apigw.Method>();
  const headMethods = new Map<Route, apigw.Method>();
  const fallbackMethods: apigw.Method[] = [];
  const byArea = new Map<string, [string, Route[]][]>();
  for (const entry of groupByPath(routes)) byArea.set(apiAreaOf(entry[0]), [...(byArea.get(apiAreaOf(entry[0])) ?? []), entry]);
  const shared = sharedPrefixes(byArea);
  for (const prefix of shared) restApi.root.resourceForPath(prefix);
  const deployment = restApi.latestDeployment!;
  const areas = new Map<string, NestedStack>();
  for (const [area, paths] of byArea) {
    const nested = new NestedStack(scope, `Routes-${area}`, { description: `Identity service ${stageName}: ${area} routes` });
    areas.set(area, nested);
    const api = apigw.RestApi.fromRestApiAttributes(nested, 'Api', {
      restApiId: restApi.restApiId,
      rootResourceId: restApi.restApiRootResourceId,
    });
    const imported = new Map<string, apigw.IResource>();
    const sharedResource = (prefix: string): apigw.IResource => {
      let r = imported.get(prefix);
      if (!r) {
        r = apigw.Resource.fromResourceAttributes(nested, `Shared${prefix}`, {
          restApi: api,
          resourceId: restApi.root.resourceForPath(prefix).resourceId,
          path: prefix,
        });
        imported.set(prefix, r);
      }
      return r;
    };
    for (const [path, pathRoutes] of paths) {
      const anchor = [...shared].filter((p) => path === p || path.startsWith(`${p}/`)).sort((a, b) => b.length - a.length)[0];
      const resource = anchor ? sharedResource(anchor).resourceForPath(path.slice(anchor.length + 1)) : api.root.resourceForPath(path);
      const requestParameters = pathParameters(path);
      for (const route of pathRoutes) {
        const method = resource.addMethod(route.method, props.integrationOf(route), {
          requestValidator: props.requestValidator,
          requestParameters,
        });
        routeMethods.set(route, method);
        // API Gateway serves only the methods it is given: HEAD would reach the ANY fallback (405).
        // HEAD is GET without the content (RFC 9110 §9.3.2), so it goes to the GET row's function,
        // which finds that row for it (shared/routes/find-route.ts); docs/deploy.md "Unknown paths and methods".
        if (route.method === 'GET') {
          headMethods.set(
            route,
            resource.addMethod('HEAD', props.integrationOf(route), { requestValidator: props.requestValidator, requestParameters }),
          );
        }
      }
      // Methods beat ANY in API Gateway, so ANY only sees the methods this path does not serve.
      fallbackMethods.push(resource.addMethod('ANY', props.fallback));
    }
    // The deployment snapshots the API: it waits for the area's methods, and a new one is made
    // whenever the route table changes (a method of an imported API does not do this itself).
    deployment.node.addDependency(nested);
    deployment.addToLogicalId({
      area,
      routes: paths.map(([path, rs]) => [path, rs.map((r) => `${r.method} ${r.handler}`)]),
      // The HEAD methods beside GET rows are part of what the stage serves.
      headForGet: true,
    });
  }
  return { areas, routeMethods, headMethods, fallbackMethods };
}

/**
 * The API area of a path, one nested stack each: a management group (`/identity/v1/<group>/...`),
 * else the route group (`oauth`, `health`).
 */
export function apiAreaOf(path: string): string {
  const group = /^\/identity\/v1\/([^/]+)/.exec(path)?.[1];
  return group ? `management-${group.replace(/[^A-Za-z0-9-]/g, '')}` : routeGroup({ path });
}

/** Path prefixes (`/identity`, `/identity/v1`) that more than one area's paths go through. */
function sharedPrefixes(byArea: ReadonlyMap<string, readonly [string, Route[]][]>): Set<string> {
  const areasOf = new Map<string, Set<string>>();
  for (const [area, paths] of byArea) {
    for (const [path] of paths) {
      const segments = path.split('/').filter(Boolean);
      for (let i = 1; i <= segments.length; i++) {
        const prefix = `/${segments.slice(0, i).join('/')}`;
        areasOf.set(prefix, (areasOf.get(prefix) ?? new Set()).add(area));
      }
    }
  }
  return new Set([...areasOf].filter(([, areas]) => areas.size > 1).map(([prefix]) => prefix));
}

/** `method.request.path.<name>: true` (required) for each `{name}` of a path. */
function pathParameters(path: string): Record<string, boolean> {
  return Object.fromEntries([...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => [`method.request.path.${m[1]}`, true]));
}

function groupByPath(routes: readonly Route[]): Map<string, Route[]> {
  const byPath = new Map<string, Route[]>();
  for (const r of routes) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  return byPath;
}
