import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SecretBox } from '../keys/key-store.ts';
import { logger } from '../logger.ts';
import type { ClientRecord } from '../records/client-record.ts';
import type { ResourceRecord } from '../records/resource-record.ts';
import { commitPlan } from '../store/core/commit-plan.ts';
import { toRecord } from '../store/core/entity.ts';
import { and, equals } from '../store/core/expression.ts';
import { collectionAll } from '../store/core/reads/collections.ts';
import { getItem, getItems } from '../store/core/reads/read-items.ts';
import { keys } from '../store/core/table-keys.ts';
import { translateError } from '../store/core/translate-error.ts';
import { updateItem } from '../store/core/writes.ts';
import { tenantsRepository } from '../store/tenants/tenants-repository.ts';
import { identifierMarkerKey } from '../store/token-path/resource-token-view.ts';

const MIGRATION = 'secret-box-dk1';

export interface ResealResult {
  /** Client secrets and Resource signing secrets moved to the data-key format by this run. */
  clients: number;
  resources: number;
  /** Values left in the old format this run (logged; they still open, and the next run tries again). */
  failed: number;
  /** The migration had already completed: nothing was read. */
  skipped?: true;
}

/**
 * Moves every sealed secret of the earlier format (one KMS Encrypt/Decrypt per value) under the
 * secret box's data key (docs/keys.md "Secrets at rest"), so that revealing them costs no KMS call
 * on a warm container. Client items (`secret_sealed`) and Resources (`resource_metadata.signing_secret`
 * and the copy in their identifier marker's `token_view`, in one transaction) are rewritten only if
 * the value is still the one that was opened (a concurrent change wins; the migration never loses
 * a secret). Records are not versioned by this: the value means the same secret.
 *
 * Idempotent: values already in the new format are left alone. A run that leaves nothing behind
 * records `BOOTSTRAP / MIGRATION#secret-box-dk1`, and later runs (every start, every deploy) skip
 * the walk: one GetItem. Values sealed the old way after that (an older release serving again)
 * still open.
 */
export async function resealSecrets(
  db: DynamoDBDocumentClient,
  tableName: string,
  secretBox: SecretBox,
  now: () => Date,
): Promise<ResealResult> {
  if (await getItem(db, tableName, keys.migrationDone(MIGRATION), now())) return { clients: 0, resources: 0, failed: 0, skipped: true };
  const result: ResealResult = { clients: 0, resources: 0, failed: 0 };
  const attempt = async (kind: 'clients' | 'resources', id: string, reseal: () => Promise<void>) => {
    try {
      await reseal();
      result[kind]++;
    } catch (err) {
      result.failed++;
      logger.warn('sealed secret not moved to the data key', { kind, id, error: (err as Error).message });
    }
  };
  for (const tenantId of await tenantsRepository(db, tableName, now).listIds()) {
    const clientIds = (await collectionAll(db, tableName, tenantId, 'CLIENTS')).map((i) => String(i.id));
    for (const item of (await getItems(db, tableName, clientIds.map(keys.client), now())).values()) {
      const c = toRecord<ClientRecord>(item);
      const old = c.secret_sealed;
      if (old === undefined || secretBox.isCurrent(old)) continue;
      await attempt('clients', c.id, async () => {
        const sealed = await secretBox.seal(await secretBox.open(old));
        await commitPlan(db, tableName, [
          [updateItem(keys.client(c.id), { set: [['secret_sealed', sealed]], condition: equals('secret_sealed', old) })],
        ]);
      });
    }
    const resourceIds = (await collectionAll(db, tableName, tenantId, 'RESOURCES')).map((i) => String(i.id));
    for (const item of (await getItems(db, tableName, resourceIds.map(keys.resource), now())).values()) {
      const r = toRecord<ResourceRecord>(item);
      const old = r.resource_metadata.signing_secret;
      if (old === undefined || secretBox.isCurrent(old)) continue;
      await attempt('resources', r.id, async () => {
        const sealed = await secretBox.seal(await secretBox.open(old));
        const path = ['resource_metadata', 'signing_secret'];
        const view = ['token_view', 'signing_secret'];
        await commitPlan(db, tableName, [
          [
            updateItem(keys.resource(r.id), { set: [[path, sealed]], condition: equals(path, old) }),
            updateItem(identifierMarkerKey(r), { set: [[view, sealed]], condition: and(equals('target_id', r.id), equals(view, old)) }),
          ],
        ]);
      });
    }
  }
  if (result.failed === 0) {
    try {
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.migrationDone(MIGRATION), type: 'Migration', schema_version: 1, name: MIGRATION, done_at: now().toISOString() },
        }),
      );
    } catch (err) {
      translateError(err);
    }
  }
  return result;
}
