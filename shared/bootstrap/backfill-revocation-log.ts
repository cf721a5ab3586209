import { type DynamoDBDocumentClient, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { getItem } from '../store/core/reads/read-items.ts';
import { keys } from '../store/core/table-keys.ts';
import { translateError } from '../store/core/translate-error.ts';
import { isLive } from '../store/core/ttl.ts';
import { REVOCATION_LOG_MIGRATION, revocationLogItem } from '../store/revocations/revocations-repository.ts';

export interface BackfillResult {
  /** Live revocations made before the log existed, copied into it by this run. */
  copied: number;
  /** The migration had already completed: nothing was read. */
  skipped?: true;
}

/**
 * Copies every live revocation entry (bound, and of the unbound format) into the revocation log
 * (shared/store/revocations/revocations-repository.ts), then records `BOOTSTRAP / MIGRATION#revocation-log`,
 * from which containers trust the log alone (shared/store/revocations/followed-revocations.ts). Revocation
 * entries have no index, so this is one paginated Scan of the table, filtered to them, once: later
 * runs find the marker (one GetItem) and read nothing. It runs after the functions that revoke
 * have their new code (the deploy order of docs/data-model.md "Migrations"), so every revocation
 * made after the walk is logged by its writer.
 *
 * A copy is stamped with the time of this run: a live entry's token expires within the longest
 * token lifetime of that time, which is how far back a container's first read of the log goes.
 * Copies are plain puts of the same item on a re-run: idempotent in effect.
 */
export async function backfillRevocationLog(db: DynamoDBDocumentClient, tableName: string, now: () => Date): Promise<BackfillResult> {
  const marker = keys.migrationDone(REVOCATION_LOG_MIGRATION);
  if (await getItem(db, tableName, marker, now())) return { copied: 0, skipped: true };
  const stamp = now();
  let copied = 0;
  try {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.send(
        new ScanCommand({
          TableName: tableName,
          FilterExpression: '#type = :type',
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: { ':type': 'RevokedToken' },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        if (!isLive(item, stamp) || typeof item.ttl !== 'number') continue;
        const ref = {
          jti: String(item.PK).slice('REVOKED#'.length),
          clientId: String(item.client_id),
          verifier: typeof item.verifier === 'string' ? item.verifier : undefined,
        };
        await db.send(new PutCommand({ TableName: tableName, Item: revocationLogItem(ref, stamp, item.ttl) }));
        copied++;
      }
      start = page.LastEvaluatedKey;
    } while (start);
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...marker, type: 'Migration', schema_version: 1, name: REVOCATION_LOG_MIGRATION, done_at: stamp.toISOString() },
      }),
    );
  } catch (err) {
    return translateError(err);
  }
  return { copied };
}
