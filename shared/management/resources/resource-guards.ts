import { forbidden } from '../../errors.ts';
import type { ClientRecord } from '../../records/client-record.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import { assertMayChange } from '../clients/client-guards.ts';
import type { ManagementContext } from '../management-context.ts';

/**
 * The client side's rules hold from this side too (shared/management/clients/client-guards.ts): a
 * tenant-bound caller may not change a global client's links, and the Default Client keeps its
 * link to the management API (revoking it would lock the operator out).
 */
export function assertLinksMayChange(
  ctx: ManagementContext,
  clients: readonly ClientRecord[],
  resource: ResourceRecord,
  removing: boolean,
): void {
  for (const client of clients) {
    assertMayChange(ctx, client);
    if (removing && client.is_default && resource.resource_metadata.is_system) {
      throw forbidden("The Default Client's access to the management API cannot be revoked.");
    }
  }
}
