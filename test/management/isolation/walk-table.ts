import type { Route } from '#shared/routes/route.ts';
import { GOOD_PASSWORD } from '../../support/management/users-fixture.ts';
import type { Kind } from './isolation-fixture.ts';

/**
 * What the isolation walk (route-walk.test.ts) needs to call every management route: the record
 * kind each path parameter names, and a valid body for each route (so that the answer is about
 * the ids, never a 400 of the body). A route or path parameter missing here fails the walk with
 * a message naming what to add: a new route is walked from the day it lands.
 */
export const PATH_KINDS: Readonly<Record<string, Kind>> = {
  client_id: 'client',
  resource_id: 'resource',
  scope_id: 'scope',
  user_id: 'user',
  role_id: 'role',
  group_id: 'group',
  grant_id: 'grant',
  tenant_id: 'tenant',
  provider_id: 'provider',
  identity_id: 'identity',
  authenticator_id: 'authenticator',
};

/** The id of a record of `kind` on the side being walked (A's own, B's, or a fresh unknown one). */
export type Ref = (kind: Kind) => string;

/** A route's body: `none` when it takes none; else built from the ids of the side walked, and `n`, a fresh suffix for names. */
export type BodyOf = 'none' | ((id: Ref, n: string) => Record<string, unknown>);

const M = '/identity/v1';
const permissions = (id: Ref) => ({ permissions: [{ resource_id: id('resource'), scopes: [id('scope')] }] });
const users = (id: Ref) => ({ users: [id('user')] });
const roles = (id: Ref) => ({ roles: [id('role')] });
const groups = (id: Ref) => ({ groups: [id('group')] });
const ticket = (id: Ref) => ({ user_id: id('user'), client_id: id('client') });

/** Every bearer route of the management API, by `METHOD path`. */
export const BODIES: Readonly<Record<string, BodyOf>> = {
  [`GET ${M}/clients`]: 'none',
  [`POST ${M}/clients`]: (id, n) => ({ client_name: `walk ${n}`, tenant_id: id('tenant') }),
  [`GET ${M}/clients/{client_id}`]: 'none',
  [`PATCH ${M}/clients/{client_id}`]: (_, n) => ({ client_name: `walk ${n}` }),
  [`PUT ${M}/clients/{client_id}`]: (_, n) => ({ client_name: `walk ${n}` }),
  [`DELETE ${M}/clients/{client_id}`]: 'none',
  [`POST ${M}/clients/{client_id}/secret`]: 'none',
  [`GET ${M}/clients/{client_id}/resources`]: 'none',
  [`POST ${M}/clients/{client_id}/resources`]: (id) => ({ resources: [id('resource')] }),
  [`DELETE ${M}/clients/{client_id}/resources`]: (id) => ({ resources: [id('resource')] }),
  [`GET ${M}/clients/{client_id}/permissions`]: 'none',
  [`POST ${M}/clients/{client_id}/permissions`]: permissions,
  [`DELETE ${M}/clients/{client_id}/permissions`]: permissions,

  [`GET ${M}/resources`]: 'none',
  [`POST ${M}/resources`]: (_, n) => ({
    resource_type: 'api',
    resource_name: `walk ${n}`,
    resource_metadata: { identifier_url: `https://walk-${n}.example.com/` },
  }),
  [`GET ${M}/resources/{resource_id}`]: 'none',
  [`PATCH ${M}/resources/{resource_id}`]: (_, n) => ({ resource_name: `walk ${n}` }),
  [`PUT ${M}/resources/{resource_id}`]: (_, n) => ({ resource_name: `walk ${n}` }),
  [`DELETE ${M}/resources/{resource_id}`]: 'none',
  [`GET ${M}/resources/{resource_id}/scopes`]: 'none',
  [`POST ${M}/resources/{resource_id}/scopes`]: (_, n) => ({ scope_name: `walk:${n}` }),
  [`GET ${M}/resources/{resource_id}/scopes/{scope_id}`]: 'none',
  [`PATCH ${M}/resources/{resource_id}/scopes/{scope_id}`]: (_, n) => ({ scope_description: `walk ${n}` }),
  [`PUT ${M}/resources/{resource_id}/scopes/{scope_id}`]: (_, n) => ({ scope_description: `walk ${n}` }),
  [`DELETE ${M}/resources/{resource_id}/scopes/{scope_id}`]: 'none',
  [`GET ${M}/resources/{resource_id}/clients`]: 'none',
  [`POST ${M}/resources/{resource_id}/clients`]: (id) => ({ clients: [id('client')] }),
  [`DELETE ${M}/resources/{resource_id}/clients`]: (id) => ({ clients: [id('client')] }),

  [`GET ${M}/users`]: 'none',
  [`POST ${M}/users`]: (id, n) => ({ email: `walk-${n}@example.com`, tenant_id: id('tenant') }),
  [`GET ${M}/users/{user_id}`]: 'none',
  [`PATCH ${M}/users/{user_id}`]: (_, n) => ({ name: `walk ${n}` }),
  [`PUT ${M}/users/{user_id}`]: (_, n) => ({ name: `walk ${n}` }),
  [`DELETE ${M}/users/{user_id}`]: 'none',
  [`POST ${M}/users/{user_id}/block`]: 'none',
  [`POST ${M}/users/{user_id}/unblock`]: 'none',
  [`PUT ${M}/users/{user_id}/password`]: () => ({ password: `${GOOD_PASSWORD}-new` }),
  [`POST ${M}/users/{user_id}/otp`]: () => ({ password: GOOD_PASSWORD }),
  [`DELETE ${M}/users/{user_id}/otp`]: 'none',
  [`GET ${M}/users/{user_id}/roles`]: 'none',
  [`POST ${M}/users/{user_id}/roles`]: roles,
  [`DELETE ${M}/users/{user_id}/roles`]: roles,
  [`GET ${M}/users/{user_id}/groups`]: 'none',
  [`POST ${M}/users/{user_id}/groups`]: groups,
  [`DELETE ${M}/users/{user_id}/groups`]: groups,
  [`GET ${M}/users/{user_id}/permissions`]: 'none',
  [`POST ${M}/users/{user_id}/permissions`]: permissions,
  [`DELETE ${M}/users/{user_id}/permissions`]: permissions,
  [`GET ${M}/users/{user_id}/identities`]: 'none',
  [`POST ${M}/users/{user_id}/identities`]: (id, n) => ({ provider_id: id('provider'), provider_user_id: `walk-${n}` }),
  [`DELETE ${M}/users/{user_id}/identities/{identity_id}`]: 'none',
  [`GET ${M}/users/{user_id}/authenticators`]: 'none',
  [`DELETE ${M}/users/{user_id}/authenticators/{authenticator_id}`]: 'none',
  [`GET ${M}/users/{user_id}/grants`]: 'none',
  [`DELETE ${M}/users/{user_id}/grants/{grant_id}`]: 'none',
  [`GET ${M}/users/{user_id}/events`]: 'none',
  [`GET ${M}/events`]: 'none',

  [`GET ${M}/roles`]: 'none',
  [`POST ${M}/roles`]: (_, n) => ({ role_name: `walk ${n}` }),
  [`GET ${M}/roles/{role_id}`]: 'none',
  [`PATCH ${M}/roles/{role_id}`]: (_, n) => ({ role_description: `walk ${n}` }),
  [`PUT ${M}/roles/{role_id}`]: (_, n) => ({ role_description: `walk ${n}` }),
  [`DELETE ${M}/roles/{role_id}`]: 'none',
  [`GET ${M}/roles/{role_id}/permissions`]: 'none',
  [`POST ${M}/roles/{role_id}/permissions`]: permissions,
  [`DELETE ${M}/roles/{role_id}/permissions`]: permissions,
  [`GET ${M}/roles/{role_id}/members`]: 'none',
  [`POST ${M}/roles/{role_id}/members`]: users,
  [`DELETE ${M}/roles/{role_id}/members`]: users,

  [`GET ${M}/groups`]: 'none',
  [`POST ${M}/groups`]: (_, n) => ({ group_name: `walk ${n}` }),
  [`GET ${M}/groups/{group_id}`]: 'none',
  [`PATCH ${M}/groups/{group_id}`]: (_, n) => ({ group_description: `walk ${n}` }),
  [`PUT ${M}/groups/{group_id}`]: (_, n) => ({ group_description: `walk ${n}` }),
  [`DELETE ${M}/groups/{group_id}`]: 'none',
  [`GET ${M}/groups/{group_id}/groups`]: 'none',
  [`POST ${M}/groups/{group_id}/groups`]: groups,
  [`DELETE ${M}/groups/{group_id}/groups`]: groups,
  [`GET ${M}/groups/{group_id}/members`]: 'none',
  [`POST ${M}/groups/{group_id}/members`]: users,
  [`DELETE ${M}/groups/{group_id}/members`]: users,
  [`GET ${M}/groups/{group_id}/roles`]: 'none',
  [`POST ${M}/groups/{group_id}/roles`]: roles,
  [`DELETE ${M}/groups/{group_id}/roles`]: roles,

  [`GET ${M}/tenants`]: 'none',
  [`POST ${M}/tenants`]: (_, n) => ({ tenant_name: `walk ${n}` }),
  [`GET ${M}/tenants/{tenant_id}`]: 'none',
  [`PATCH ${M}/tenants/{tenant_id}`]: (_, n) => ({ tenant_description: `walk ${n}` }),
  [`DELETE ${M}/tenants/{tenant_id}`]: 'none',
  [`GET ${M}/tenants/{tenant_id}/admins`]: 'none',
  [`POST ${M}/tenants/{tenant_id}/admins`]: users,
  [`DELETE ${M}/tenants/{tenant_id}/admins`]: users,
  [`GET ${M}/tenants/{tenant_id}/identity-providers`]: 'none',
  [`POST ${M}/tenants/{tenant_id}/identity-providers`]: (_, n) => ({
    provider_name: `walk-${n}`,
    provider_type: 'oidc',
    issuer: `https://walk-${n}.example.com`,
    client_id: 'walk',
  }),
  [`GET ${M}/tenants/{tenant_id}/identity-providers/{provider_id}`]: 'none',
  [`PATCH ${M}/tenants/{tenant_id}/identity-providers/{provider_id}`]: () => ({ enabled: false }),
  [`PUT ${M}/tenants/{tenant_id}/identity-providers/{provider_id}`]: () => ({ enabled: false }),
  [`DELETE ${M}/tenants/{tenant_id}/identity-providers/{provider_id}`]: 'none',

  [`POST ${M}/tickets/password-change`]: ticket,
  [`POST ${M}/tickets/email-verification`]: ticket,
  [`POST ${M}/tickets/otp-enrollment`]: ticket,
};

/**
 * Lists that refuse `total_count=true` (docs/events.md "Query API": no counter): the walk checks
 * their items' tenant and ids without asking for a count.
 */
export const WITHOUT_TOTAL_COUNT: ReadonlySet<string> = new Set([`GET ${M}/events`, `GET ${M}/users/{user_id}/events`]);

/**
 * Management routes that take no bearer token, so no tenant-bound caller: the walk skips them and
 * the OAuth part covers them (oauth-isolation.test.ts).
 */
export const NOT_BEARER: ReadonlySet<string> = new Set([`POST ${M}/users/register`]);

export const routeKey = (r: Pick<Route, 'method' | 'path'>) => `${r.method} ${r.path}`;

/** The path parameter names of a route, in order. */
export const pathParams = (path: string) => [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);

/** What the walk does not know about `route`: one line per missing entry (empty: it can be walked). */
export function missingFillers(route: Route): string[] {
  const key = routeKey(route);
  if (NOT_BEARER.has(key)) return [];
  const missing = pathParams(route.path)
    .filter((p) => !(p in PATH_KINDS))
    .map((p) => `${key}: path parameter {${p}} has no kind; add it to PATH_KINDS in test/management/isolation/walk-table.ts`);
  if (!(key in BODIES))
    missing.push(`${key}: no body; add it to BODIES in test/management/isolation/walk-table.ts ('none' or a valid body)`);
  return missing;
}
