import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { forbidden, notFound } from '../../errors.ts';
import type { HeldPermission, PermissionHolderKind } from '../../records/held-permission.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import { readClientPartition } from '../clients/client-partition.ts';
import { commitPlan, type Guard } from '../core/commit-plan.ts';
import { toRecord } from '../core/entity.ts';
import { exists } from '../core/expression.ts';
import { countWrite } from '../core/reads/collections.ts';
import { queryAll, queryGsi2 } from '../core/reads/query-all.ts';
import { getItems } from '../core/reads/read-items.ts';
import { RetryableConflict, withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { deleteItem, keyString, updateItem, type Write } from '../core/writes.ts';
import {
  heldPermissionHolder,
  heldPermissionKind,
  holderIdOf,
  holderRecordKey,
  revokeHeldPermissionsUnit,
  revokeHeldPermissionUnit,
} from '../rbac/held-permission-writes.ts';
import { unlinkUnits } from '../rbac/link-writes.ts';
import { clientHolder } from '../token-path/token-copies.ts';
import { releaseIdentifier } from './identifier-claim.ts';

/**
 * Deletes a resource and everything hanging off it (docs/contract.md §6; a system resource: 403). One
 * transaction when it fits; otherwise, in this order, each step a transaction that leaves every
 * count exact:
 *   1. per linked client: its permissions on the resource, the link, both ends' counts; then each
 *      role's and user's permission on its scopes, with the holder's count and `token_grants` entry;
 *   2. per scope: the scope with its entries in the resource's maps and count, and its name marker;
 *   3. the resource, its identifier_url markers (identifier-claim.ts), its tenant's `COUNT#RESOURCES`.
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
      if (!item) throw notFound('Resource not found.');
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
      // Roles' and users' permissions on its scopes (GSI2 `SCOPE#{s}#HOLDERS`): removed with the holder's
      // count and token_grants entry. Each scope's holders must add up to its exact count, as the links do.
      const scopeIds = partition.filter((i) => i.type === 'Scope').map((i) => String(i.id));
      const clientHolders = new Map<string, number>();
      for (const p of clients)
        for (const x of p!.permissions)
          if (x.resource_id === resourceId) clientHolders.set(x.scope_id, (clientHolders.get(x.scope_id) ?? 0) + 1);
      const heldByHolder = new Map<string, { kind: PermissionHolderKind; id: string; ps: HeldPermission[] }>();
      for (const scopeId of scopeIds) {
        const held = (await queryGsi2(db, tableName, keys.scopeHolders(scopeId))).filter((h) => heldPermissionKind(h.type));
        if ((clientHolders.get(scopeId) ?? 0) + held.length !== (resource.scope_holders[scopeId] ?? 0))
          throw new RetryableConflict('The holder index is catching up; retry.');
        for (const h of held) {
          const kind = heldPermissionKind(h.type)!;
          const p = toRecord<HeldPermission>(h);
          const id = holderIdOf(kind, p);
          const entry = heldByHolder.get(`${kind}#${id}`) ?? { kind, id, ps: [] };
          entry.ps.push(p);
          heldByHolder.set(`${kind}#${id}`, entry);
        }
      }
      const owners = await getItems(
        db,
        tableName,
        [...heldByHolder.values()].map((h) => holderRecordKey(h.kind, h.id)),
        new Date(),
      );
      // Per holder, its permissions here go 40 per unit, each unit dropping the holder's whole entry
      // for the resource (every scope of it is going); a holder already deleted only loses the items.
      for (const { kind, id, ps } of heldByHolder.values()) {
        const owner = owners.get(keyString(holderRecordKey(kind, id)));
        const holder = owner && heldPermissionHolder(kind, toRecord(owner));
        for (let k = 0; k < ps.length; k += 40) {
          const some = ps.slice(k, k + 40);
          if (holder) units.push(revokeHeldPermissionsUnit(kind, some, holder, []));
          else units.push(...some.map((x) => revokeHeldPermissionUnit(kind, x, undefined)));
        }
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
        ...releaseIdentifier(resource),
        countWrite(resource.tenant_id, 'RESOURCES', -1),
      ]);
      await commitPlan(db, tableName, units, { guards });
    },
    { attempts: 8 },
  );
}
