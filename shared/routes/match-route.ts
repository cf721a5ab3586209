import { TRAILING_SLASH_REDIRECTS } from './docs-routes.ts';
import type { HttpMethod, Route } from './route.ts';
import { ROUTES } from './route-table.ts';

const pattern = (path: string) => new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[a-z_]+\}/g, '([^/]+)')}$`);

interface CompiledPath {
  path: string;
  regex: RegExp;
  params: string[];
  routes: Route[];
}

const compiled: CompiledPath[] = (() => {
  const byPath = new Map<string, CompiledPath>();
  for (const r of ROUTES) {
    let c = byPath.get(r.path);
    if (!c) {
      c = { path: r.path, regex: pattern(r.path), params: [...r.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!), routes: [] };
      byPath.set(r.path, c);
    }
    c.routes.push(r);
  }
  return [...byPath.values()];
})();

const literalPaths = new Map(compiled.filter((c) => c.params.length === 0).map((c) => [c.path, c]));

export type Match =
  | { kind: 'route'; route: Route; pathParameters: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: (HttpMethod | 'HEAD')[] }
  /** A 308 to `location`, a reference relative to the request path (so a stage prefix in the URL is kept). */
  | { kind: 'redirect'; location: string }
  | { kind: 'not_found' };

/**
 * The row a method is served by: its own, or for HEAD the path's GET row (RFC 9110 §9.3.2: HEAD is
 * GET without the content). The CDK app gives every GET row a HEAD method (infra/constructs/route-areas.ts).
 */
const servedBy = (routes: readonly Route[], method: string) => {
  const wanted = method === 'HEAD' ? 'GET' : method;
  return routes.find((r) => r.method === wanted);
};

/** RFC 9110 §10.2.1: `Allow` names every method the resource supports, HEAD wherever GET is (`servedBy`). */
const allowOf = (routes: readonly Route[]): (HttpMethod | 'HEAD')[] =>
  routes.flatMap((r): (HttpMethod | 'HEAD')[] => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method]));

/** Matches a concrete request path against the route table (local server and the API's fallback handler). */
export function matchRoute(method: string, urlPath: string): Match {
  // A path with no parameters matches only itself and always wins (fewest parameters): one Map
  // lookup serves the hot OAuth endpoints without trying every pattern.
  const literal = literalPaths.get(urlPath);
  if (literal) {
    const route = servedBy(literal.routes, method);
    return route ? { kind: 'route', route, pathParameters: {} } : { kind: 'method_not_allowed', allow: allowOf(literal.routes) };
  }
  const candidates: { c: CompiledPath; values: string[] }[] = [];
  for (const c of compiled) {
    const m = c.regex.exec(urlPath);
    if (m) candidates.push({ c, values: m.slice(1) });
  }
  if (candidates.length === 0) return redirectOf(urlPath) ?? { kind: 'not_found' };
  // API Gateway prefers literal segments over parameters; the fewest parameters wins.
  candidates.sort((a, b) => a.c.params.length - b.c.params.length);
  const { c, values } = candidates[0]!;
  const route = servedBy(c.routes, method);
  if (!route) return { kind: 'method_not_allowed', allow: allowOf(c.routes) };
  const pathParameters: Record<string, string> = {};
  c.params.forEach((name, i) => {
    pathParameters[name] = safeDecode(values[i]!);
  });
  return { kind: 'route', route, pathParameters };
}

/** `/docs/` → `../docs`: RFC 3986 §5.2 resolves it against `/docs/` (or `/<stage>/docs/`) to the path without the slash. */
function redirectOf(urlPath: string): Match | undefined {
  const path = urlPath.slice(0, -1);
  if (!urlPath.endsWith('/') || !TRAILING_SLASH_REDIRECTS.includes(path)) return undefined;
  return { kind: 'redirect', location: `../${path.slice(path.lastIndexOf('/') + 1)}` };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // a malformed escape is left as sent; validation then rejects it with a 400
  }
}
