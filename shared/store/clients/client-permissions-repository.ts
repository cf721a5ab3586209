import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { badRequest, conflict, notFound } from '../../errors.ts';
import type { ClientPermission, PermissionRequest } from '../../records/client-link-records.ts';
import { newAuditFields } from '../../records/common.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import { toRecord } from '../core/entity.ts';
import { getItems } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { keyString } from '../core/writes.ts';
import { commitLinkChange, LinkPlan } from '../rbac/link-commit.ts';
import { grantUnit, MAX_PERMISSIONS_PER_CLIENT, revokePermissionUnit } from '../rbac/link-writes.ts';
import { pairsOf } from '../rbac/permission-pairs.ts';
import { clientHolder } from '../token-path/token-copies.ts';
import { readClientPartition } from './client-partition.ts';

/**
 * Client permissions (spec §2.6; docs/contract.md §6). A permission is `CLIENT#{c}` /
 * `PERMISSION#{r}#{s}` (GSI2 `SCOPE#{s}#HOLDERS` / `CLIENT#{c}`), so the token endpoint reads a
 * client's grants with the client. Grant and revoke are all-or-nothing over the whole body:
 * validated on a consistent read, then one transaction that also moves
 * `client.aggregations.permissions` and the resource's `scope_holders` count. The transaction
 * requires the client's `links_version` (the link the grant relies on is still there) and the
 * scope's entry in the resource's `scope_names` (the scope is still there).
 */
export interface ClientPermissionsRepository {
  /**
   * 404: client unknown, or a resource unknown / in another tenant (unless the client is global or the resource is the shared system resource).
   * 409: the resource is not authorized to the client, or the permission exists.
   * 400: a scope is not a scope of that resource (the message names it).
   */
  grant(clientId: string, permissions: readonly PermissionRequest[], actor: string): Promise<void>;
  /** 404: client unknown or a permission missing. */
  revoke(clientId: string, permissions: readonly PermissionRequest[]): Promise<void>;
  /** The client's permissions in (resource id, scope id) order: one consistent Query. 404 if the client is unknown. */
  listForClient(clientId: string): Promise<ClientPermission[]>;
}

const pairKey = (p: { resource_id: string; scope_id: string }) => `${p.resource_id}#${p.scope_id}`;

export function clientPermissionsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): ClientPermissionsRepository {
  const mustRead = async (clientId: string) => {
    const p = await readClientPartition(db, tableName, clientId);
    // docs/contract.md §8: messages name the path parameter or body field at fault, never the ids sent.
    if (!p) throw notFound('Client not found.');
    return p;
  };

  return {
    grant: (clientId, requests, actor) =>
      commitLinkChange(db, tableName, async (done) => {
        const pairs = pairsOf(requests);
        const p = await mustRead(clientId);
        const resourceIds = [...new Set(pairs.map((x) => x.resourceId))];
        const found = await getItems(db, tableName, resourceIds.map(keys.resource), now());
        const resources = new Map<string, ResourceRecord>();
        for (const id of resourceIds) {
          const item = found.get(keyString(keys.resource(id)));
          const r = item && toRecord<ResourceRecord>(item);
          // The system resource is shared by every tenant (client-links-repository.ts `visible`).
          if (!r || (!p.client.is_global && r.tenant_id !== p.client.tenant_id && !r.resource_metadata.is_system))
            throw notFound('body.permissions: a resource was not found.');
          resources.set(id, r);
        }
        for (const id of resourceIds) {
          if (!p.links.has(id)) throw conflict('body.permissions: a resource is not authorized to this client; authorize it first.');
        }
        for (const { resourceId, scopeId } of pairs) {
          if (!(scopeId in resources.get(resourceId)!.scope_names)) throw badRequest('a scope is not a scope of its resource.');
        }
        const existing = new Map(p.permissions.map((x) => [pairKey(x), x]));
        const todo = pairs.filter(({ resourceId, scopeId }) => {
          const e = existing.get(`${resourceId}#${scopeId}`);
          if (e && !done.has(e.id)) throw conflict('body.permissions: a scope is already granted to this client.');
          return !e;
        });
        if (p.client.aggregations.permissions + todo.length > MAX_PERMISSIONS_PER_CLIENT) {
          throw conflict(`The client would have more than ${MAX_PERMISSIONS_PER_CLIENT} permissions; revoke some first.`);
        }
        const at = now().toISOString();
        const records: ClientPermission[] = todo.map(({ resourceId, scopeId }) => ({
          id: uuidv7(),
          tenant_id: p.client.tenant_id,
          client_id: clientId,
          resource_id: resourceId,
          scope_id: scopeId,
          ...newAuditFields(actor, at),
        }));
        const plan = new LinkPlan().guard(keys.client(clientId), p.client.links_version);
        for (const r of records) plan.add([grantUnit(r, clientHolder(p.client))], r.id);
        return plan;
      }),

    revoke: (clientId, requests) =>
      commitLinkChange(db, tableName, async (done) => {
        const pairs = pairsOf(requests);
        const p = await mustRead(clientId);
        const existing = new Map(p.permissions.map((x) => [pairKey(x), x]));
        const todo: ClientPermission[] = [];
        for (const { resourceId, scopeId } of pairs) {
          const k = `${resourceId}#${scopeId}`;
          const e = existing.get(k);
          if (!e && !done.has(k)) throw notFound('body.permissions: a scope is not granted to this client.');
          if (e) todo.push(e);
        }
        const plan = new LinkPlan().guard(keys.client(clientId), p.client.links_version);
        for (const x of todo) plan.add([revokePermissionUnit(x, clientHolder(p.client))], pairKey(x));
        return plan;
      }),

    async listForClient(clientId) {
      return (await mustRead(clientId)).permissions;
    },
  };
}
