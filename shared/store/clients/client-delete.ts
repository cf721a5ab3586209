import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { forbidden, notFound } from '../../errors.ts';
import type { ClientPermission } from '../../records/client-link-records.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { and, equals, exists } from '../core/expression.ts';
import { countWrite } from '../core/reads/collections.ts';
import { withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { deleteItem, type Write } from '../core/writes.ts';
import { unlinkUnits } from '../rbac/link-writes.ts';
import { clientHolder } from '../token-path/token-copies.ts';
import { type ClientPartition, readClientPartition } from './client-partition.ts';

/**
 * Deletes a client and everything hanging off it. One transaction when it fits (≤ 100 items);
 * otherwise, in this order, each step a transaction that leaves every count exact:
 *   1. per linked resource: the client's permissions on it, the link, that resource's client and
 *      holder counts, the client's counts (unlinkUnits);
 *   2. the client item and its tenant's `COUNT#CLIENTS`.
 * Every step requires the client's `links_version` read at the start, so a link or permission
 * added meanwhile fails the step; the delete then re-reads and continues from where it stopped.
 */
export function deleteClient(db: DynamoDBDocumentClient, tableName: string, clientId: string): Promise<void> {
  return withRetries(async () => {
    const partition = await readClientPartition(db, tableName, clientId);
    if (!partition) throw notFound('Client not found.');
    if (partition.client.is_default) throw forbidden('The Default Client cannot be deleted.');
    await commitPlan(db, tableName, clientCascadeUnits(partition), {
      guards: [{ key: keys.client(clientId), expected: partition.client.links_version }],
    });
  });
}

function clientCascadeUnits({ client, links, permissions }: ClientPartition): Write[][] {
  const byResource = new Map<string, ClientPermission[]>();
  for (const p of permissions) byResource.set(p.resource_id, [...(byResource.get(p.resource_id) ?? []), p]);
  const units: Write[][] = [];
  for (const resourceId of links.keys()) units.push(...unlinkUnits(clientHolder(client), resourceId, byResource.get(resourceId) ?? []));
  // Permissions without a link cannot be created; if one exists anyway (a bug), remove it too.
  const orphans = permissions.filter((p) => !links.has(p.resource_id));
  if (orphans.length) {
    units.push(orphans.map((p) => deleteItem(keys.clientPermission(p.client_id, p.resource_id, p.scope_id))));
  }
  // The counter decremented is the tenant read above: a tenant move in between must fail this
  // step (and the delete re-reads), or the two tenants' counts would drift.
  units.push([
    deleteItem(keys.client(client.id), { condition: and(exists, equals('tenant_id', client.tenant_id)) }),
    countWrite(client.tenant_id, 'CLIENTS', -1),
  ]);
  return units;
}
