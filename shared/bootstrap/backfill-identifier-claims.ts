import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict } from '../errors.ts';
import { logger } from '../logger.ts';
import type { ResourceRecord } from '../records/resource-record.ts';
import { commitPlan } from '../store/core/commit-plan.ts';
import { toRecord } from '../store/core/entity.ts';
import { equals } from '../store/core/expression.ts';
import { putMarker } from '../store/core/markers.ts';
import { collectionAll } from '../store/core/reads/collections.ts';
import { getItems } from '../store/core/reads/read-items.ts';
import { keys } from '../store/core/table-keys.ts';
import { checkItem, keyString } from '../store/core/writes.ts';
import { stageIdentifierKey } from '../store/resources/identifier-claim.ts';
import { tenantsRepository } from '../store/tenants/tenants-repository.ts';
import { identifierMarkerKey } from '../store/token-path/resource-token-view.ts';

export interface IdentifierClaimsResult {
  /** Stage-wide identifier markers written by this run. */
  claimed: number;
  /** Resources whose identifier another resource already claims stage-wide, or that changed meanwhile (logged). */
  failed: number;
}

/**
 * Gives every Resource its stage-wide identifier marker (shared/store/resources/identifier-claim.ts)
 * if it lacks one: resources written before the marker existed, or by an older release serving
 * again after a rollback. Runs on every deploy, like the token path's reconciliation; a
 * re-run finds every marker present and writes nothing. Uniqueness does not wait for it: a
 * claim outside the default tenant also checks the default tenant's per-tenant marker, where
 * every resource older than the stage-wide marker lives.
 *
 * Each marker is put only while the resource still holds its per-tenant marker (so a concurrent
 * move or delete is never outlived by a stale claim) and only if no other resource claims the
 * identifier. Cost: per tenant, its resources collection (GSI1), the records and their stage-wide
 * markers (BatchGetItem, 100 a call); one transaction of 2 items per marker written.
 */
export async function backfillIdentifierClaims(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
): Promise<IdentifierClaimsResult> {
  const result: IdentifierClaimsResult = { claimed: 0, failed: 0 };
  for (const tenantId of await tenantsRepository(db, tableName, now).listIds()) {
    const ids = (await collectionAll(db, tableName, tenantId, 'RESOURCES')).map((i) => String(i.id));
    const records = [...(await getItems(db, tableName, ids.map(keys.resource), now())).values()].map((i) => toRecord<ResourceRecord>(i));
    const claims = await getItems(
      db,
      tableName,
      records.map((r) => stageIdentifierKey(r.resource_metadata.identifier_url)),
      now(),
    );
    for (const r of records) {
      const claim = claims.get(keyString(stageIdentifierKey(r.resource_metadata.identifier_url)));
      if (claim?.target_id === r.id) continue;
      try {
        await commitPlan(db, tableName, [
          [
            checkItem(identifierMarkerKey(r), equals('target_id', r.id)),
            putMarker(stageIdentifierKey(r.resource_metadata.identifier_url), r.id, {
              onTaken: () => conflict('identifier_url claimed by another resource'),
              attributes: { tenant_id: r.tenant_id },
            }),
          ],
        ]);
        result.claimed++;
      } catch (err) {
        // Two tenants holding one identifier from before it was unique stage-wide cannot be
        // repaired here: logged for the operator (docs/tenants.md "Tokens across tenants").
        result.failed++;
        logger.warn('identifier_url not claimed stage-wide', { resource_id: r.id, tenant_id: r.tenant_id, error: (err as Error).message });
      }
    }
  }
  return result;
}
