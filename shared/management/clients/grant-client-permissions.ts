import type { PermissionRequest } from '../../records/client-link-records.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { namingPermissionsField } from '../kit/permissions-body.ts';
import { assertMayGrant } from '../no-escalation.ts';
import type { ClientDeps } from './client-deps.ts';
import { assertMayChange, assertResourcesVisible } from './client-guards.ts';

/**
 * POST /clients/{client_id}/permissions `{permissions: [{resource_id, scopes}]}` (spec §4.3,
 * docs/contract.md §6), all-or-nothing: unknown resource 404; resource not authorized to the client 409;
 * a scope that is not the resource's 400; an existing permission 409. What is granted is what a
 * client_credentials token may carry from the next request on (grants live in the client's
 * partition, which /token reads; this container's cache is dropped).
 */
export async function grantClientPermissions(
  deps: ClientDeps,
  access: ManagementAccess,
  clientId: string,
  permissions: readonly PermissionRequest[],
): Promise<void> {
  const { ctx } = access;
  const client = await loadVisible(deps.clients, ctx, clientId, 'Client');
  assertMayChange(ctx, client);
  await assertResourcesVisible(
    deps,
    ctx,
    permissions.map((p) => p.resource_id),
    'body.permissions',
  );
  await assertMayGrant(ctx.scopes, permissions, (id) => deps.resources.get(id));
  await namingPermissionsField(() => deps.permissions.grant(clientId, permissions, ctx.actor));
  deps.forget(clientId);
}
