import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { forbidden, notFound } from '../errors.ts';
import type { ResourceRecord } from '../records/resource-record.ts';
import { readClientPartition } from './client-partition.ts';
import { countWrite } from './collections.ts';
import { commitPlan, type Guard } from './commit-plan.ts';
import { toRecord } from './entity.ts';
import { exists } from './expression.ts';
import { unlinkUnits } from './link-writes.ts';
import { queryAll, queryGsi2 } from './query-all.ts';
import { deleteIdentifierMarker } from './resource-token-view.ts';
import { RetryableConflict, withRetries } from './retry.ts';
import { keys } from './table-keys.ts';
import { clientHolder } from './token-copies.ts';
import { deleteItem, updateItem, type Write } from './writes.ts';

/**
 * Deletes a resource and everything hanging off it (API.md §6; a system resource: 403). One
 * transaction when it fits; otherwise, in this order, each step a transaction that leaves every
 * count exact:
 *   1. per linked client: its permissions on the resource, the link, both ends' counts;
 *   2. per scope: the scope with its entries in the resource's maps and count, and its name marker;
 *   3. the resource, its identifier_url marker, its tenant's `COUNT#RESOURCES`.
 * The linked clients come from the GSI2 reverse index, which may lag: the delete only proceeds
 * when the index agrees with the resource's exact `aggregations.clients`. Every step is guarded by
 * the `links_version` of the resource and of each client it touches, so a link, permission or
 * scope added meanwhile fails the step and the delete re-reads and continues.
 */
export function deleteResource(db: DynamoDBDocumentClient, tableName: string, resourceId: string): Promise<void> {
  return withRetries(
    async () => {
      const partition = await queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'PK' },
        ExpressionAttributeValues: { ':pk': keys.resourcePartition(resourceId) },
        ConsistentRead: true,
      });
      const item = partition.find((i) => i.type === 'Resource');
      if (!item) throw notFound(`Resource ${resourceId} not found.`);
      const resource = toRecord<ResourceRecord>(item);
      if (resource.resource_metadata.is_system) throw forbidden('The system resource cannot be deleted.');

      const links = await queryGsi2(db, tableName, keys.resourceClients(resourceId));
      if (links.length !== resource.aggregations.clients) throw new RetryableConflict('The link index is catching up; retry.');
      const clients = await Promise.all(links.map((l) => readClientPartition(db, tableName, String(l.client_id))));

      const units: Write[][] = [];
      const guards: Guard[] = [{ key: keys.resource(resourceId), expected: resource.links_version }];
      for (const p of clients) {
        if (!p?.links.has(resourceId)) throw new RetryableConflict('A linked client changed; retry.');
        guards.push({ key: keys.client(p.client.id), expected: p.client.links_version });
        units.push(
          ...unlinkUnits(
            clientHolder(p.client),
            resourceId,
            p.permissions.filter((x) => x.resource_id === resourceId),
          ),
        );
      }
      for (const i of partition) {
        if (i.type === 'Scope') {
          const scopeId = String(i.id);
          units.push([
            deleteItem(keys.scope(resourceId, scopeId)),
            updateItem(keys.resource(resourceId), {
              add: [[['aggregations', 'scopes'], -1]],
              remove: [
                ['scope_names', scopeId],
                ['scope_holders', scopeId],
              ],
              condition: exists,
            }),
          ]);
        } else if (i.type === 'UniqueMarker') units.push([deleteItem({ PK: String(i.PK), SK: String(i.SK) })]);
      }
      units.push([
        deleteItem(keys.resource(resourceId), { condition: exists }),
        deleteIdentifierMarker(resource),
        countWrite(resource.tenant_id, 'RESOURCES', -1),
      ]);
      await commitPlan(db, tableName, units, { guards });
    },
    { attempts: 8 },
  );
}
