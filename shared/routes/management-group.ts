import { bearer } from './auth-rules.ts';
import type { Access, HttpMethod, Route } from './route.ts';

/** The management API's base path (docs/contract.md §6). */
export const MANAGEMENT_BASE = '/identity/v1';

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
 * The routes of one management group (docs/contract.md §6), e.g. `clients`: paths under
 * `/identity/v1/{group}`, handlers in `functions/{group}/`, and each row's scope either an
 * action on the group (`read` → `read:clients`) or a full scope (`update:client_keys`). `common`
 * holds what every route of the group shares (a throttle, ...). Adding a group is one call in
 * management-routes.ts plus its handler modules (docs/adding-a-management-group.md).
 */
export function managementGroup(group: string, rows: readonly GroupRoute[], common: Partial<Pick<Route, 'throttle'>> = {}): Route[] {
  return rows.map(([method, path, handler, scope, access, options]) => ({
    method,
    path: `${MANAGEMENT_BASE}/${group}${path}`,
    handler: `functions/${group}/${handler}`,
    auth: { ...bearer(scope.includes(':') ? scope : `${scope}:${group}`), ...(options ? { self: options.self } : {}) },
    access,
    ...common,
  }));
}
