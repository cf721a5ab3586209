import { isDeepStrictEqual } from 'node:util';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logger } from '../../logger.ts';
import type { ClientRecord } from '../../records/client-record.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import { readClientPartition } from '../clients/client-partition.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { toRecord } from '../core/entity.ts';
import { and, equals } from '../core/expression.ts';
import { collectionAll } from '../core/reads/collections.ts';
import { getItem, getItems } from '../core/reads/read-items.ts';
import { withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { checkItem, keyString } from '../core/writes.ts';
import { tenantsRepository } from '../tenants/tenants-repository.ts';
import { identifierMarkerKey, tokenViewOf } from './resource-token-view.ts';
import { copyWrites, grantsCopyIsCurrent } from './token-copies.ts';

export interface ReconcileResult {
  /** Client items whose `token_grants` was rebuilt. */
  clients: number;
  /** Identifier markers whose `token_view` was rewritten. */
  resources: number;
  /** Records that could not be repaired this run (logged; the copies stay unused or as they were). */
  failed: number;
}

/**
 * Brings the token path's copies in line with their sources (docs/data-model.md "Migrations"):
 * `token_grants` on client items, `token_view` on identifier markers. Needed for data written
 * before the copies existed, and after anything that wrote without keeping them: an older
 * release serving again after a rollback, for instance. So bootstrap runs it on every start and
 * every deploy, after the functions that write have their new code and before the ones that read
 * the copies do (infra: the deploy order; locally: before the server listens).
 *
 * Cost: the tenants' client and resource collections (GSI1 Queries) and the resources' markers
 * (BatchGetItem, 100 a call); a client's partition is read only when its copy's stamp says it
 * missed a change. Each repair is written under the condition that what it was computed from has
 * not changed (`links_version`, `version`), and recomputed if it has.
 */
export async function reconcileTokenViews(db: DynamoDBDocumentClient, tableName: string, now: () => Date): Promise<ReconcileResult> {
  const result: ReconcileResult = { clients: 0, resources: 0, failed: 0 };
  // One record that cannot be repaired (a marker another resource holds, a client changing all the
  // time) must not fail the start or the deploy: it is logged, and its copy is no worse than before.
  const repair = async (kind: 'clients' | 'resources', id: string, fix: () => Promise<boolean>) => {
    try {
      if (await fix()) result[kind]++;
    } catch (err) {
      result.failed++;
      logger.warn('token path copy not repaired', { kind, id, error: (err as Error).message });
    }
  };
  for (const tenantId of await tenantsRepository(db, tableName, now).listIds()) {
    // The collections (GSI1) name the records; the records themselves are read consistently, so
    // a write that landed just before is not hidden behind an older index image.
    const clientIds = (await collectionAll(db, tableName, tenantId, 'CLIENTS')).map((i) => String(i.id));
    const clients = await getItems(db, tableName, clientIds.map(keys.client), now());
    for (const item of clients.values()) {
      const c = toRecord<ClientRecord>(item);
      if (!grantsCopyIsCurrent(c)) await repair('clients', c.id, () => rebuildClient(db, tableName, c.id));
    }
    const resourceIds = (await collectionAll(db, tableName, tenantId, 'RESOURCES')).map((i) => String(i.id));
    const resources = [...(await getItems(db, tableName, resourceIds.map(keys.resource), now())).values()].map((i) =>
      toRecord<ResourceRecord>(i),
    );
    const markers = await getItems(db, tableName, resources.map(identifierMarkerKey), now());
    for (const r of resources) {
      const marker = markers.get(keyString(identifierMarkerKey(r)));
      if (!sameView(marker?.token_view, r)) await repair('resources', r.id, () => rewriteView(db, tableName, r.id, now));
    }
  }
  return result;
}

/** As stored: attributes that are undefined on the record are absent from the item. */
const sameView = (stored: unknown, r: ResourceRecord) => isDeepStrictEqual(stored, JSON.parse(JSON.stringify(tokenViewOf(r))));

/** The client's grants from its partition, written only if no link or permission changed since the read. */
function rebuildClient(db: DynamoDBDocumentClient, tableName: string, clientId: string): Promise<boolean> {
  return withRetries(async () => {
    const p = await readClientPartition(db, tableName, clientId);
    if (!p || grantsCopyIsCurrent(p.client)) return false;
    const change = {
      kind: 'copy-rebuilt',
      holder: { kind: 'client', id: clientId },
      links: p.links.keys(),
      permissions: p.permissions,
      linksVersion: p.client.links_version,
    } as const;
    await commitPlan(db, tableName, [copyWrites([change])]);
    return true;
  });
}

/** The resource's view onto its marker, written only if the resource did not change since the read. */
function rewriteView(db: DynamoDBDocumentClient, tableName: string, resourceId: string, now: () => Date): Promise<boolean> {
  return withRetries(async () => {
    const item = await getItem(db, tableName, keys.resource(resourceId), now());
    if (!item) return false;
    const r = toRecord<ResourceRecord>(item);
    const marker = await getItem(db, tableName, identifierMarkerKey(r), now());
    if (!marker || sameView(marker.token_view, r)) return false;
    await commitPlan(db, tableName, [
      [
        ...copyWrites([{ kind: 'view-rewritten', resource: r }]),
        checkItem(keys.resource(r.id), and(equals('version', r.version), equals('links_version', r.links_version))),
      ],
    ]);
    return true;
  });
}
