import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AppError } from '../../errors.ts';
import type { UserIdentityRecord } from '../../records/user-identity-record.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { toRecord } from '../core/entity.ts';
import { deleteMarker } from '../core/markers.ts';
import { queryPrefix } from '../core/reads/query-all.ts';
import { keys } from '../core/table-keys.ts';
import { deleteItem, type Write } from '../core/writes.ts';

/** A (provider, provider user) pair: the key of an identity at sign-in. */
export interface IdentityKey {
  providerId: string;
  providerUserId: string;
}

/** `UNIQUE#IDENTITY#{provider_id}#{provider_user_id}` (docs/data-model.md "Identity marker"). */
export const identityMarker = (k: IdentityKey) => keys.marker('IDENTITY', k.providerId, k.providerUserId);

/** The identity item and its marker (only while the marker still names this identity). */
export function unlinkWrites(record: Pick<UserIdentityRecord, 'id' | 'user_id' | 'provider_id' | 'provider_user_id'>): Write[] {
  return [
    deleteItem(keys.userIdentity(record.user_id, record.id)),
    deleteMarker(identityMarker({ providerId: record.provider_id, providerUserId: record.provider_user_id }), record.id),
  ];
}

/**
 * The identities of a deleted user (user-delete.ts), after its item is gone: each item with its
 * marker, one small transaction each, the marker only while it still names that identity (a
 * sign-in may already have replaced a marker left by this user: that one stays). At most
 * MAX_IDENTITIES_PER_USER (user-identities-repository.ts), so bounded; re-running finishes an interrupted sweep.
 */
export async function sweepUserIdentities(db: DynamoDBDocumentClient, tableName: string, userId: string): Promise<number> {
  const items = await queryPrefix(db, tableName, keys.userPartition(userId), keys.identityPrefix);
  await Promise.all(
    items.map(async (item) => {
      const record = toRecord<UserIdentityRecord>(item);
      await commitPlan(db, tableName, [unlinkWrites(record)]).catch(async (err) => {
        if (!(err instanceof AppError && err.status === 409)) throw err;
        await commitPlan(db, tableName, [[deleteItem(keys.userIdentity(userId, record.id))]]);
      });
    }),
  );
  return items.length;
}
