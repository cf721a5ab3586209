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
  /** Left out: no table access at all. */
  readonly table?: 'read' | 'readwrite';
  /** KMS operations: `decrypt` unwraps signing keys / secrets, `encrypt` wraps new secrets, `sign` for kms-sign mode, `generate` makes key pairs. */
  readonly kms: readonly ('decrypt' | 'encrypt' | 'sign' | 'generate')[];
  /** Sends email (shared/email/): only these functions get `ses:SendEmail` and the sender settings. */
  readonly email?: true;
}

/**
 * `none`: public. `client`: the use case authenticates the caller itself (its client, RFC 6749
 * §2.3; or, at `/userinfo`, its bearer token).
 * `bearer`: an access token of this service (DESIGN §4, API.md §4), with `scope` when given; with
 * `self`, a user's own token also passes when the path parameter of that name is the user's id
 * (API.md §7.6 "self" routes, shared/http/authenticate.ts).
 */
export type AuthRule = { type: 'none' } | { type: 'client' } | { type: 'bearer'; scope?: string; self?: string };

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

/**
 * Function groups and their Lambda timeouts in seconds (the CDK app sets them, the local server
 * runs each handler with its group's deadline). Every dependency call is bounded far below these
 * by its budget (shared/aws/dependency-budget.ts); a function that still runs out answers 503 just
 * before its timeout (shared/http/http-handler.ts). All stay inside API Gateway's 29 s.
 */
export const FUNCTION_TIMEOUTS = {
  /** Answers within about a second, `degraded` when DynamoDB does not (shared/health/check-health.ts). */
  health: 3,
  /** OAuth endpoints: a read or two and a signature, with a caller waiting on each. */
  oauth: 6,
  /** Management API: a few reads, one transaction, KMS for secrets and list cursors. */
  management: 12,
  /** 404/405 answers of the API's fallback function: no I/O at all. */
  gateway: 3,
} as const;
export type FunctionGroup = keyof typeof FUNCTION_TIMEOUTS;

/** The group of a route, by its path: the management API, health, and OAuth 2.0 / OIDC at the root (API.md §1). */
const GROUP_BY_PREFIX: readonly (readonly [string, FunctionGroup])[] = [
  ['/identity/v1/', 'management'],
  ['/company/v1/health', 'health'],
  ['/api/company/v1/health', 'health'],
  ['/', 'oauth'],
];

export function routeGroup(route: Pick<Route, 'path'>): FunctionGroup {
  return GROUP_BY_PREFIX.find(([prefix]) => route.path.startsWith(prefix))![1];
}

/** The Lambda timeout of a route's function (routes of one handler module share one function and its longest timeout). */
export function functionTimeoutSeconds(handlerModule: string, routes: readonly Route[] = ROUTES): number {
  const own = routes.filter((r) => r.handler === handlerModule);
  if (own.length === 0) throw new Error(`No route uses handler module "${handlerModule}"`);
  return Math.max(...own.map((r) => FUNCTION_TIMEOUTS[routeGroup(r)]));
}

/** Nothing of the table or KMS: the API's documentation is in the function's bundle. */
const NO_DATA: Access = { kms: [] };
const READ: Access = { table: 'read', kms: [] };
const WRITE: Access = { table: 'readwrite', kms: [] };
/** Signs tokens: unwraps the signing key once per cold start (envelope) or signs with KMS (kms-sign). */
const SIGN: Access = { table: 'readwrite', kms: ['decrypt', 'sign'] };
/** Lists sign their cursors with the service HMAC key, which is stored wrapped. */
const LIST: Access = { table: 'read', kms: ['decrypt'] };
/** Introspection: reads, and opens HS256 Resources' secrets (the secret box's data key). */
const INTROSPECT: Access = { table: 'read', kms: ['decrypt'] };
/** Writes, and opens sealed secrets: an HS256 Resource's signing secret, the hosted pages' keys. */
const WRITE_DECRYPT: Access = { table: 'readwrite', kms: ['decrypt'] };
/** Reads secrets back (`read:client_keys`) or writes new ones. */
const SECRETS: Access = { table: 'readwrite', kms: ['decrypt', 'encrypt'] };

const none = { type: 'none' } as const;
const client = { type: 'client' } as const;
const bearer = (scope?: string): AuthRule => (scope ? { type: 'bearer', scope } : { type: 'bearer' });

const M = '/identity/v1';

/** One route of a management group: method, path below the group, handler module, scope, access. */
export type GroupRoute = readonly [
  method: HttpMethod,
  path: string,
  handler: string,
  scope: string,
  access: Access,
  /** `self: 'user_id'`: the scope, or the user that path parameter names with its own token. */
  options?: { self: string },
];

/**
 * The routes of one management group (API.md §6), e.g. `clients`: paths under
 * `/identity/v1/{group}`, handlers in `functions/{group}/`, and each row's scope either an
 * action on the group (`read` → `read:clients`) or a full scope (`update:client_keys`). `common`
 * holds what every route of the group shares (a throttle, ...). Adding a group is one call here
 * plus its handler modules (docs/adding-a-management-group.md).
 */
export function managementGroup(group: string, rows: readonly GroupRoute[], common: Partial<Pick<Route, 'throttle'>> = {}): Route[] {
  return rows.map(([method, path, handler, scope, access, options]) => ({
    method,
    path: `${M}/${group}${path}`,
    handler: `functions/${group}/${handler}`,
    auth: { ...bearer(scope.includes(':') ? scope : `${scope}:${group}`), ...(options ? { self: options.self } : {}) },
    access,
    ...common,
  }));
}

export const ROUTES: readonly Route[] = [
  // Health (spec 4.4): any valid token of this service.
  { method: 'GET', path: '/company/v1/health', handler: 'functions/health/get-health', auth: bearer(), access: READ },
  { method: 'GET', path: '/api/company/v1/health', handler: 'functions/health/get-health', auth: bearer(), access: READ },

  // OAuth 2.0 / OIDC (API.md §5).
  { method: 'GET', path: '/.well-known/openid-configuration', handler: 'functions/oauth/discovery', auth: none, access: READ },
  { method: 'GET', path: '/.well-known/oauth-authorization-server', handler: 'functions/oauth/discovery', auth: none, access: READ },
  { method: 'GET', path: '/.well-known/jwks.json', handler: 'functions/oauth/jwks', auth: none, access: READ },
  // Password and OTP attempts ride on this bucket: API Gateway throttles by method and path, not by
  // grant_type (a body field). Guessing is bounded per user by the lockout (API.md §7.3) and per
  // address by a WAF rule (docs/security.md "Rate limits").
  {
    method: 'POST',
    path: '/token',
    handler: 'functions/oauth/token',
    auth: client,
    access: SIGN,
    throttle: { rateLimit: 2000, burstLimit: 4000 },
  },
  // Decrypt: an HS256 token is verified with its Resource's secret, sealed under the secret box's
  // data key (opened once per container; docs/keys.md "Secrets at rest").
  {
    method: 'POST',
    path: '/tokeninfo',
    handler: 'functions/oauth/tokeninfo',
    auth: client,
    access: INTROSPECT,
    throttle: { rateLimit: 2000, burstLimit: 4000 },
  },
  {
    method: 'POST',
    path: '/introspect',
    handler: 'functions/oauth/introspect',
    auth: client,
    access: INTROSPECT,
    throttle: { rateLimit: 2000, burstLimit: 4000 },
  },
  { method: 'POST', path: '/revoke', handler: 'functions/oauth/revoke', auth: client, access: WRITE },
  // OIDC Core §5.3: the handler checks the bearer token itself (user, audience, `openid`), so the
  // rule is `client` (the use case authenticates), not the management API's `bearer`. Reads only:
  // HS256 tokens are refused there, so no Resource secret is ever opened.
  // Relying parties call it after every login, resource servers may on every request: the
  // introspection endpoints' throttle.
  ...(['GET', 'POST'] as const).map((method) => ({
    method,
    path: '/userinfo',
    handler: 'functions/oauth/userinfo',
    auth: client,
    access: READ,
    throttle: { rateLimit: 2000, burstLimit: 4000 },
  })),

  // Authorization endpoint (issue 13, authorize branch; docs/browser-flows.md "Authorization
  // endpoint"). HTML errors and redirects; signs implicit tokens. A stage-wide bucket (API Gateway
  // throttles per method and path, not per caller) sized well above sign-in traffic: it caps a
  // flood of interactions (one item each) without a per-address limit (the WAF's, docs/security.md).
  ...(['GET', 'POST'] as const).map((method) => ({
    method,
    path: '/authorize',
    handler: 'functions/oauth/authorize',
    auth: none,
    access: SIGN,
    throttle: { rateLimit: 200, burstLimit: 400 },
  })),
  { method: 'GET', path: '/authorize/resume', handler: 'functions/oauth/authorize-resume', auth: none, access: SIGN },
  // Device flow (issue 13, RFC 8628; docs/browser-flows.md "Device flow"). Each device request
  // writes two items: the stage-wide bucket caps that, as it caps guesses at the /device page
  // (the per-address limit of RFC 8628 §5.1 is in the page itself).
  ...(['GET', 'POST'] as const).map((method) => ({
    method,
    path: '/device_code',
    handler: 'functions/oauth/device-code',
    auth: client,
    // Decrypt: naming an HS256 Resource opens its sealed secret (token-path-records.ts).
    access: WRITE_DECRYPT,
    throttle: { rateLimit: 50, burstLimit: 100 },
  })),
  // The user-code page: GET shows (and pre-fills), POST checks the code. Its POST bucket caps the
  // guesses of the whole stage (RFC 8628 §5.1); the page also limits each source address itself.
  { method: 'GET', path: '/device', handler: 'functions/pages/device', auth: none, access: { table: 'read', kms: ['decrypt'] } },
  {
    method: 'POST',
    path: '/device',
    handler: 'functions/pages/device',
    auth: none,
    access: WRITE_DECRYPT,
    throttle: { rateLimit: 10, burstLimit: 20 },
  },
  { method: 'GET', path: '/device/resume', handler: 'functions/pages/device-resume', auth: none, access: WRITE_DECRYPT },

  // Management API, part 1 (API.md §6): one group per area, declared with `managementGroup`.
  ...managementGroup('clients', [
    ['GET', '', 'list-clients', 'read', LIST],
    ['POST', '', 'create-client', 'create', SECRETS],
    ['GET', '/{client_id}', 'get-client', 'read', { table: 'read', kms: ['decrypt'] }],
    ['PATCH', '/{client_id}', 'update-client', 'update', SECRETS],
    ['PUT', '/{client_id}', 'update-client', 'update', SECRETS],
    ['DELETE', '/{client_id}', 'delete-client', 'delete', WRITE],
    ['POST', '/{client_id}/secret', 'change-client-secret', 'update:client_keys', SECRETS],
    ['GET', '/{client_id}/resources', 'list-client-resources', 'read', LIST],
    ['POST', '/{client_id}/resources', 'authorize-client-resources', 'update', WRITE],
    ['DELETE', '/{client_id}/resources', 'revoke-client-resources', 'update', WRITE],
    ['GET', '/{client_id}/permissions', 'list-client-permissions', 'read', LIST],
    ['POST', '/{client_id}/permissions', 'grant-client-permissions', 'update', WRITE],
    ['DELETE', '/{client_id}/permissions', 'revoke-client-permissions', 'update', WRITE],
  ]),

  ...managementGroup('resources', [
    ['GET', '', 'list-resources', 'read', LIST],
    ['POST', '', 'create-resource', 'create', SECRETS],
    ['GET', '/{resource_id}', 'get-resource', 'read', { table: 'read', kms: ['decrypt'] }],
    ['PATCH', '/{resource_id}', 'update-resource', 'update', SECRETS],
    ['PUT', '/{resource_id}', 'update-resource', 'update', SECRETS],
    ['DELETE', '/{resource_id}', 'delete-resource', 'delete', WRITE],
    ['GET', '/{resource_id}/scopes', 'list-resource-scopes', 'read', LIST],
    ['POST', '/{resource_id}/scopes', 'create-resource-scope', 'update', WRITE],
    ['GET', '/{resource_id}/scopes/{scope_id}', 'get-resource-scope', 'read', READ],
    ['PATCH', '/{resource_id}/scopes/{scope_id}', 'update-resource-scope', 'update', WRITE],
    ['PUT', '/{resource_id}/scopes/{scope_id}', 'update-resource-scope', 'update', WRITE],
    ['DELETE', '/{resource_id}/scopes/{scope_id}', 'delete-resource-scope', 'update', WRITE],
    ['GET', '/{resource_id}/clients', 'list-resource-clients', 'read', LIST],
    ['POST', '/{resource_id}/clients', 'authorize-resource-clients', 'update', WRITE],
    ['DELETE', '/{resource_id}/clients', 'revoke-resource-clients', 'update', WRITE],
  ]),

  // Users (API.md §6, §7.5, §7.6; docs/management-users.md). Password and OTP are "self" routes.
  ...managementGroup('users', [
    ['GET', '', 'list-users', 'read', LIST],
    ['POST', '', 'create-user', 'create', WRITE],
    ['GET', '/{user_id}', 'get-user', 'read', READ],
    ['PATCH', '/{user_id}', 'update-user', 'update', WRITE],
    ['PUT', '/{user_id}', 'update-user', 'update', WRITE],
    ['DELETE', '/{user_id}', 'delete-user', 'delete', WRITE],
    ['POST', '/{user_id}/block', 'block-user', 'update', WRITE],
    ['POST', '/{user_id}/unblock', 'unblock-user', 'update', WRITE],
    ['PUT', '/{user_id}/password', 'set-user-password', 'update', WRITE, { self: 'user_id' }],
    ['POST', '/{user_id}/otp', 'enroll-user-otp', 'update', SECRETS, { self: 'user_id' }],
    ['DELETE', '/{user_id}/otp', 'remove-user-otp', 'update', WRITE, { self: 'user_id' }],
  ]),
  // Roles (issue 12; docs/management-roles.md).
  ...managementGroup('roles', [
    ['GET', '', 'list-roles', 'read', LIST],
    ['POST', '', 'create-role', 'create', WRITE],
    ['GET', '/{role_id}', 'get-role', 'read', READ],
    ['PATCH', '/{role_id}', 'update-role', 'update', WRITE],
    ['PUT', '/{role_id}', 'update-role', 'update', WRITE],
    ['DELETE', '/{role_id}', 'delete-role', 'delete', WRITE],
    ['GET', '/{role_id}/permissions', 'list-role-permissions', 'read', LIST],
    ['POST', '/{role_id}/permissions', 'grant-role-permissions', 'update', WRITE],
    ['DELETE', '/{role_id}/permissions', 'revoke-role-permissions', 'update', WRITE],
    ['GET', '/{role_id}/members', 'list-role-members', 'read', LIST],
    ['POST', '/{role_id}/members', 'add-role-members', 'update', WRITE],
    ['DELETE', '/{role_id}/members', 'remove-role-members', 'update', WRITE],
  ]),
  // Roles seen from the user: the same member links (issue 12; docs/management-roles.md).
  ...managementGroup('users', [
    ['GET', '/{user_id}/roles', 'list-user-roles', 'read', LIST],
    ['POST', '/{user_id}/roles', 'add-user-roles', 'update', WRITE],
    ['DELETE', '/{user_id}/roles', 'remove-user-roles', 'update', WRITE],
  ]),

  // Groups (API.md §6, §7.6; docs/management-groups.md).
  ...managementGroup('groups', [
    ['GET', '', 'list-groups', 'read', LIST],
    ['POST', '', 'create-group', 'create', WRITE],
    ['GET', '/{group_id}', 'get-group', 'read', READ],
    ['PATCH', '/{group_id}', 'update-group', 'update', WRITE],
    ['PUT', '/{group_id}', 'update-group', 'update', WRITE],
    ['DELETE', '/{group_id}', 'delete-group', 'delete', WRITE],
    ['GET', '/{group_id}/groups', 'list-nested-groups', 'read', LIST],
    ['POST', '/{group_id}/groups', 'add-nested-groups', 'update', WRITE],
    ['DELETE', '/{group_id}/groups', 'remove-nested-groups', 'update', WRITE],
    ['GET', '/{group_id}/members', 'list-group-members', 'read', LIST],
    ['POST', '/{group_id}/members', 'add-group-members', 'update', WRITE],
    ['DELETE', '/{group_id}/members', 'remove-group-members', 'update', WRITE],
    ['GET', '/{group_id}/roles', 'list-group-roles', 'read', LIST],
    ['POST', '/{group_id}/roles', 'add-group-roles', 'update', WRITE],
    ['DELETE', '/{group_id}/roles', 'remove-group-roles', 'update', WRITE],
  ]),
  // A user's groups from the user's side (the same links); GET with inherited groups is rbac-tokens'.
  ...managementGroup('users', [
    ['POST', '/{user_id}/groups', 'add-user-groups', 'update', WRITE],
    ['DELETE', '/{user_id}/groups', 'remove-user-groups', 'update', WRITE],
  ]),
  // Effective RBAC seen from the user (issue 12; docs/rbac.md): direct + inherited groups, effective permissions with sources.
  ...managementGroup('users', [
    ['GET', '/{user_id}/groups', 'list-user-groups', 'read', LIST],
    ['GET', '/{user_id}/permissions', 'list-user-permissions', 'read', LIST],
  ]),
  // A user's direct permissions (issue 12; docs/management-users.md); the GET of effective permissions is rbac-tokens'.
  ...managementGroup('users', [
    ['POST', '/{user_id}/permissions', 'grant-user-permissions', 'update', WRITE],
    ['DELETE', '/{user_id}/permissions', 'revoke-user-permissions', 'update', WRITE],
  ]),

  // User Grants (issue 13, branch pages; docs/browser-flows.md "User Grants"): withdrawing one
  // revokes that client's refresh tokens of the user.
  ...managementGroup('users', [
    ['GET', '/{user_id}/grants', 'list-user-grants', 'read:grants', LIST],
    ['DELETE', '/{user_id}/grants/{grant_id}', 'delete-user-grant', 'delete:grants', WRITE],
  ]),

  // Self-service sign-up (API.md §6, §7.5; docs/users.md "Registration and email"): the client
  // authenticates itself; the one function that sends email. Throttled on its own: API Gateway's
  // per-route bucket is shared by all callers, so it caps the stage's sign-up rate (and its SES
  // spend), not one caller's (docs/security.md "Rate limits").
  {
    method: 'POST',
    path: `${M}/users/register`,
    handler: 'functions/users/register',
    auth: client,
    access: { ...WRITE, email: true },
    throttle: { rateLimit: 10, burstLimit: 20 },
  },
  // Tickets (API.md §6, issue 13 item 5; docs/browser-flows.md "Tickets"): the page's links.
  ...managementGroup('tickets', [
    ['POST', '/password-change', 'create-password-change-ticket', 'create:tickets', WRITE],
    ['POST', '/email-verification', 'create-email-verification-ticket', 'create:tickets', WRITE],
  ]),
  // The ticket page (API.md §5, §7.4): HTML; decrypt opens the hosted pages' CSRF key.
  {
    method: 'GET',
    path: '/tickets/{ticket}',
    handler: 'functions/pages/ticket',
    auth: none,
    access: { table: 'readwrite', kms: ['decrypt'] },
  },
  {
    method: 'POST',
    path: '/tickets/{ticket}',
    handler: 'functions/pages/ticket',
    auth: none,
    access: { table: 'readwrite', kms: ['decrypt'] },
  },

  // Hosted login, consent and logout pages (issue 13, branch pages; docs/browser-flows.md): HTML.
  // Decrypt opens the hosted pages' CSRF key and the sealed TOTP secrets of the OTP step. POST
  // /login has its own bucket: every password guess of the stage rides on it (the per-user lockout
  // of API.md §7.3 bounds guesses per account, this bounds them per stage).
  ...(['GET', 'POST'] as const).flatMap((method) =>
    (['login', 'consent', 'logout'] as const).map(
      (page): Route => ({
        method,
        path: `/${page}`,
        handler: `functions/pages/${page}`,
        auth: none,
        access: { table: 'readwrite', kms: ['decrypt'] },
        ...(method === 'POST' && page === 'login' ? { throttle: { rateLimit: 100, burstLimit: 200 } } : {}),
      }),
    ),
  ),

  // The API's own documentation (docs/openapi.md): the OpenAPI document generated from this table
  // and the reference page (Swagger UI) with its files, all from the functions' bundles.
  { method: 'GET', path: '/openapi.json', handler: 'functions/docs/openapi-document', auth: none, access: NO_DATA },
  { method: 'GET', path: '/docs', handler: 'functions/docs/reference-page', auth: none, access: NO_DATA },
  { method: 'GET', path: '/docs/{file}', handler: 'functions/docs/reference-page', auth: none, access: NO_DATA },
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
    return route
      ? { kind: 'route', route, pathParameters: {} }
      : { kind: 'method_not_allowed', allow: literal.routes.map((r) => r.method) };
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
