import { insufficientScope } from '../errors.ts';
import { MANAGEMENT_SCOPES } from '../routes/management-scopes.ts';

/**
 * docs/contract.md §8 "No escalation": a caller never grants what it does not hold. Adding management-API
 * scopes to anything (client permissions today; role permissions, direct user permissions, and the
 * links that pass such scopes on - role members, group roles, group members, nested groups, tenant
 * admins - as they arrive) needs the caller's token to hold each of those scopes, else 403
 * `insufficient_scope` naming one, before anything is written.
 *
 * Two pieces, so every link kind can use it:
 * - `managementScopesIn(grants, getResource)`: the management-API scope names a permission body
 *   (`[{resource_id, scopes: [scope_id]}]`, the shape of client, role and user permissions) adds;
 * - `assertHolds(held, names)`: the rule itself, for any set of names a link passes on (a role's
 *   management scopes when adding members, a group's when nesting it, ...).
 */

/** One entry of a permission body: scope ids of one resource. */
export interface ScopeGrant {
  resource_id: string;
  scopes: readonly string[];
}

/** What the rule needs to know of a resource named in a grant. */
export interface GrantedResource {
  resource_metadata: { is_system: boolean };
  /** Scope id → scope name. */
  scope_names: Readonly<Record<string, string>>;
}

/**
 * 403 `insufficient_scope` naming the first (in sort order, so the answer is stable) scope of
 * `passedOn` that `held` lacks. Nothing to pass on passes.
 */
export function assertHolds(held: ReadonlySet<string>, passedOn: Iterable<string>): void {
  const missing = [...new Set(passedOn)].filter((s) => !held.has(s)).sort();
  if (missing.length) throw insufficientScope(missing[0]!);
}

/**
 * The management-API scope names among `grants`. Only the system resource (docs/contract.md §4) carries
 * management scopes; an unknown resource or scope id contributes nothing here (the repository
 * answers 404 / 400 for it after this check).
 */
export async function managementScopesIn(
  grants: readonly ScopeGrant[],
  getResource: (id: string) => Promise<GrantedResource | undefined>,
): Promise<string[]> {
  const ids = [...new Set(grants.map((g) => g.resource_id))];
  const resources = await Promise.all(ids.map(getResource));
  const system = new Map(ids.flatMap((id, i) => (resources[i]?.resource_metadata.is_system ? [[id, resources[i]!] as const] : [])));
  return grants.flatMap((g) => {
    const names = system.get(g.resource_id)?.scope_names;
    return names ? g.scopes.flatMap((id) => (names[id] ? [names[id]] : [])) : [];
  });
}

/** Both in one: a permission body may only add management scopes the caller holds. */
export async function assertMayGrant(
  held: ReadonlySet<string>,
  grants: readonly ScopeGrant[],
  getResource: (id: string) => Promise<GrantedResource | undefined>,
): Promise<void> {
  assertHolds(held, await managementScopesIn(grants, getResource));
}

/**
 * docs/contract.md §8 applied to credentials ("no takeover"): whoever sets another principal's credentials
 * (a user's password, authenticator, login identifier or password-change ticket; a client's
 * secret) can then act as it, with every management scope it holds. So the caller must hold each
 * of `theirs` (403 `insufficient_scope` naming one, nothing written): a helpdesk role with
 * `update:users` cannot take over an administrator, nor `update:client_keys` the Default Client.
 * The principal itself always may (its own password, its own secret). `theirs` is read (only when
 * the caller is someone else) through the 1 s record caches (docs/rbac.md "Staleness").
 */
export async function assertMayActAs(
  caller: { actor: string; scopes: ReadonlySet<string> },
  principalId: string,
  theirs: () => Promise<ReadonlySet<string>>,
): Promise<void> {
  if (caller.actor.toLowerCase() === principalId.toLowerCase()) return;
  assertHolds(caller.scopes, await theirs());
}

/**
 * The management API is a Resource like no other (docs/security.md "The management API"): a
 * client linked to it can carry any user's management token, an administrator's included. So
 * linking a client to it, and changing how a linked client receives tokens, pass on every
 * management scope at once: the caller must hold each scope the service's routes know (the set
 * bootstrap grants the Default Client; scopes someone added to the resource gate nothing), else
 * 403 `insufficient_scope` naming the first missing one, nothing written.
 */
export function assertHoldsEveryManagementScope(held: ReadonlySet<string>): void {
  assertHolds(held, MANAGEMENT_SCOPES);
}

/** Whether `held` has every management scope: nothing is guarded for such a caller. */
export const holdsEveryManagementScope = (held: ReadonlySet<string>): boolean => MANAGEMENT_SCOPES.every((s) => held.has(s));
