/**
 * The route table: the one place that lists endpoints (DESIGN.md §2). The CDK app builds the REST
 * API, one Lambda per handler and its grants from it; the local server routes requests with it;
 * the HTTP pipeline reads a route's auth rule and scope from it. Adding an endpoint = one line here
 * plus its handler module.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Throttle {
  /** Steady-state requests per second (API Gateway `rateLimit`). */
  readonly rateLimit: number;
  /** Bucket size (API Gateway `burstLimit`). */
  readonly burstLimit: number;
}

/** What the handler's function may touch: the CDK app turns this into least-privilege grants. */
export interface Access {
  readonly table: 'read' | 'readwrite';
  /** KMS operations: `decrypt` unwraps signing keys / secrets, `encrypt` wraps new secrets, `sign` for kms-sign mode, `generate` makes key pairs. */
  readonly kms: readonly ('decrypt' | 'encrypt' | 'sign' | 'generate')[];
}

/**
 * `none`: public. `client`: the use case authenticates the client itself (RFC 6749 §2.3).
 * `bearer`: an access token of this service (DESIGN §4, API.md §4), with `scope` when given.
 */
export type AuthRule = { type: 'none' } | { type: 'client' } | { type: 'bearer'; scope?: string };

export interface Route {
  readonly method: HttpMethod;
  /** API Gateway resource path; `{name}` marks a path parameter. */
  readonly path: string;
  /** Handler module relative to the project root, without extension; it exports `handler`. */
  readonly handler: string;
  readonly auth: AuthRule;
  readonly access: Access;
  /** Overrides the stage's default throttle for this route. */
  readonly throttle?: Throttle;
}

const READ: Access = { table: 'read', kms: [] };
const WRITE: Access = { table: 'readwrite', kms: [] };
/** Signs tokens: unwraps the signing key once per cold start (envelope) or signs with KMS (kms-sign). */
const SIGN: Access = { table: 'readwrite', kms: ['decrypt', 'sign'] };
/** Lists sign their cursors with the service HMAC key, which is stored wrapped. */
const LIST: Access = { table: 'read', kms: ['decrypt'] };
/** Introspection: reads, and opens HS256 Resources' secrets (the secret box's data key). */
const INTROSPECT: Access = { table: 'read', kms: ['decrypt'] };
/** Reads secrets back (`read:client_keys`) or writes new ones. */
const SECRETS: Access = { table: 'readwrite', kms: ['decrypt', 'encrypt'] };

const none = { type: 'none' } as const;
const client = { type: 'client' } as const;
const bearer = (scope?: string): AuthRule => (scope ? { type: 'bearer', scope } : { type: 'bearer' });

const M = '/identity/v1';

export const ROUTES: readonly Route[] = [
  // Health (spec 4.4): any valid token of this service.
  { method: 'GET', path: '/company/v1/health', handler: 'functions/health/get-health', auth: bearer(), access: READ },
  { method: 'GET', path: '/api/company/v1/health', handler: 'functions/health/get-health', auth: bearer(), access: READ },

  // OAuth 2.0 / OIDC (API.md §5).
  { method: 'GET', path: '/.well-known/openid-configuration', handler: 'functions/oauth/discovery', auth: none, access: READ },
  { method: 'GET', path: '/.well-known/oauth-authorization-server', handler: 'functions/oauth/discovery', auth: none, access: READ },
  { method: 'GET', path: '/.well-known/jwks.json', handler: 'functions/oauth/jwks', auth: none, access: READ },
  { method: 'POST', path: '/token', handler: 'functions/oauth/token', auth: client, access: SIGN, throttle: { rateLimit: 2000, burstLimit: 4000 } },
  // Decrypt: an HS256 token is verified with its Resource's secret, sealed under the secret box's
  // data key (opened once per container; docs/keys.md "Secrets at rest").
  { method: 'POST', path: '/tokeninfo', handler: 'functions/oauth/tokeninfo', auth: client, access: INTROSPECT, throttle: { rateLimit: 2000, burstLimit: 4000 } },
  { method: 'POST', path: '/introspect', handler: 'functions/oauth/introspect', auth: client, access: INTROSPECT, throttle: { rateLimit: 2000, burstLimit: 4000 } },
  { method: 'POST', path: '/revoke', handler: 'functions/oauth/revoke', auth: client, access: WRITE },

  // Management API, part 1 (API.md §6).
  { method: 'GET', path: `${M}/clients`, handler: 'functions/clients/list-clients', auth: bearer('read:clients'), access: LIST },
  { method: 'POST', path: `${M}/clients`, handler: 'functions/clients/create-client', auth: bearer('create:clients'), access: SECRETS },
  { method: 'GET', path: `${M}/clients/{client_id}`, handler: 'functions/clients/get-client', auth: bearer('read:clients'), access: { table: 'read', kms: ['decrypt'] } },
  { method: 'PATCH', path: `${M}/clients/{client_id}`, handler: 'functions/clients/update-client', auth: bearer('update:clients'), access: SECRETS },
  { method: 'PUT', path: `${M}/clients/{client_id}`, handler: 'functions/clients/update-client', auth: bearer('update:clients'), access: SECRETS },
  { method: 'DELETE', path: `${M}/clients/{client_id}`, handler: 'functions/clients/delete-client', auth: bearer('delete:clients'), access: WRITE },
  { method: 'POST', path: `${M}/clients/{client_id}/secret`, handler: 'functions/clients/change-client-secret', auth: bearer('update:client_keys'), access: SECRETS },
  { method: 'GET', path: `${M}/clients/{client_id}/resources`, handler: 'functions/clients/list-client-resources', auth: bearer('read:clients'), access: LIST },
  { method: 'POST', path: `${M}/clients/{client_id}/resources`, handler: 'functions/clients/authorize-client-resources', auth: bearer('update:clients'), access: WRITE },
  { method: 'DELETE', path: `${M}/clients/{client_id}/resources`, handler: 'functions/clients/revoke-client-resources', auth: bearer('update:clients'), access: WRITE },
  { method: 'GET', path: `${M}/clients/{client_id}/permissions`, handler: 'functions/clients/list-client-permissions', auth: bearer('read:clients'), access: LIST },
  { method: 'POST', path: `${M}/clients/{client_id}/permissions`, handler: 'functions/clients/grant-client-permissions', auth: bearer('update:clients'), access: WRITE },
  { method: 'DELETE', path: `${M}/clients/{client_id}/permissions`, handler: 'functions/clients/revoke-client-permissions', auth: bearer('update:clients'), access: WRITE },

  { method: 'GET', path: `${M}/resources`, handler: 'functions/resources/list-resources', auth: bearer('read:resources'), access: LIST },
  { method: 'POST', path: `${M}/resources`, handler: 'functions/resources/create-resource', auth: bearer('create:resources'), access: SECRETS },
  { method: 'GET', path: `${M}/resources/{resource_id}`, handler: 'functions/resources/get-resource', auth: bearer('read:resources'), access: { table: 'read', kms: ['decrypt'] } },
  { method: 'PATCH', path: `${M}/resources/{resource_id}`, handler: 'functions/resources/update-resource', auth: bearer('update:resources'), access: SECRETS },
  { method: 'PUT', path: `${M}/resources/{resource_id}`, handler: 'functions/resources/update-resource', auth: bearer('update:resources'), access: SECRETS },
  { method: 'DELETE', path: `${M}/resources/{resource_id}`, handler: 'functions/resources/delete-resource', auth: bearer('delete:resources'), access: WRITE },
  { method: 'GET', path: `${M}/resources/{resource_id}/scopes`, handler: 'functions/resources/list-resource-scopes', auth: bearer('read:resources'), access: LIST },
  { method: 'POST', path: `${M}/resources/{resource_id}/scopes`, handler: 'functions/resources/create-resource-scope', auth: bearer('update:resources'), access: WRITE },
  { method: 'GET', path: `${M}/resources/{resource_id}/scopes/{scope_id}`, handler: 'functions/resources/get-resource-scope', auth: bearer('read:resources'), access: READ },
  { method: 'PATCH', path: `${M}/resources/{resource_id}/scopes/{scope_id}`, handler: 'functions/resources/update-resource-scope', auth: bearer('update:resources'), access: WRITE },
  { method: 'PUT', path: `${M}/resources/{resource_id}/scopes/{scope_id}`, handler: 'functions/resources/update-resource-scope', auth: bearer('update:resources'), access: WRITE },
  { method: 'DELETE', path: `${M}/resources/{resource_id}/scopes/{scope_id}`, handler: 'functions/resources/delete-resource-scope', auth: bearer('update:resources'), access: WRITE },
  { method: 'GET', path: `${M}/resources/{resource_id}/clients`, handler: 'functions/resources/list-resource-clients', auth: bearer('read:resources'), access: LIST },
  { method: 'POST', path: `${M}/resources/{resource_id}/clients`, handler: 'functions/resources/authorize-resource-clients', auth: bearer('update:resources'), access: WRITE },
  { method: 'DELETE', path: `${M}/resources/{resource_id}/clients`, handler: 'functions/resources/revoke-resource-clients', auth: bearer('update:resources'), access: WRITE },
];

/** Every scope of the management API (API.md §6), granted to the Default Client at bootstrap. */
export const MANAGEMENT_SCOPES: readonly string[] = [
  ...['clients', 'resources', 'tenants', 'identity_providers', 'roles', 'users', 'groups'].flatMap((r) =>
    ['read', 'create', 'update', 'delete'].map((a) => `${a}:${r}`),
  ),
  'read:client_keys',
  'update:client_keys',
  'read:grants',
  'delete:grants',
  'create:tickets',
];

const pattern = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[a-z_]+\}/g, '([^/]+)')}$`);

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
const byMethodAndPath = new Map(ROUTES.map((r) => [`${r.method} ${r.path}`, r]));

export type Match =
  | { kind: 'route'; route: Route; pathParameters: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: HttpMethod[] }
  | { kind: 'not_found' };

/** Matches a concrete request path (local server and the API's fallback handler). */
export function matchRoute(method: string, urlPath: string): Match {
  // A path with no parameters matches only itself and always wins (fewest parameters): one Map
  // lookup serves the hot OAuth endpoints without trying every pattern.
  const literal = literalPaths.get(urlPath);
  if (literal) {
    const route = literal.routes.find((r) => r.method === method);
    return route ? { kind: 'route', route, pathParameters: {} } : { kind: 'method_not_allowed', allow: literal.routes.map((r) => r.method) };
  }
  const candidates: { c: CompiledPath; values: string[] }[] = [];
  for (const c of compiled) {
    const m = c.regex.exec(urlPath);
    if (m) candidates.push({ c, values: m.slice(1) });
  }
  if (candidates.length === 0) return { kind: 'not_found' };
  // API Gateway prefers literal segments over parameters; the fewest parameters wins.
  candidates.sort((a, b) => a.c.params.length - b.c.params.length);
  const { c, values } = candidates[0]!;
  const route = c.routes.find((r) => r.method === method);
  if (!route) return { kind: 'method_not_allowed', allow: c.routes.map((r) => r.method) };
  const pathParameters: Record<string, string> = {};
  c.params.forEach((name, i) => {
    pathParameters[name] = safeDecode(values[i]!);
  });
  return { kind: 'route', route, pathParameters };
}

/** The route of an API Gateway event (`httpMethod` + `resource`, the path template). */
export function findRoute(method: string, resource: string): Route {
  const route = byMethodAndPath.get(`${method} ${resource}`);
  if (!route) throw new Error(`No route for ${method} ${resource}`);
  return route;
}

/** Distinct handler modules, one Lambda function each. */
export function handlerModules(routes: readonly Route[] = ROUTES): string[] {
  return [...new Set(routes.map((r) => r.handler))];
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // a malformed escape is left as sent; validation then rejects it with a 400
  }
}
