import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { passwordHashPrefix } from '../../crypto/password-hash.ts';
import { USER_LOGIN_KINDS, type UserLoginKind, type UserRecord, userMarkerValue } from '../../records/user-record.ts';
import { keys, type MarkerKind } from '../core/table-keys.ts';

const MARKER_KIND: Record<UserLoginKind, MarkerKind> = { email: 'USER_EMAIL', username: 'USER_NAME', phone_number: 'USER_PHONE' };

/** The uniqueness marker of one login identifier of a user in a tenant (email and username without case). */
export const userMarker = (tenantId: string, kind: UserLoginKind, value: string) =>
  keys.marker(MARKER_KIND[kind], tenantId, userMarkerValue(kind, value));

/** The keys of the login markers a user has (one per identifier it has). */
export const userLoginMarkers = (user: Pick<UserRecord, 'tenant_id' | UserLoginKind>) =>
  USER_LOGIN_KINDS.flatMap((kind) => {
    const value = user[kind];
    return value === undefined ? [] : [userMarker(user.tenant_id, kind, value)];
  });

/**
 * What a login marker carries besides its owner: `password_prefix`, the prefix of the user's
 * password hash (password-hash.ts `passwordHashPrefix`: parameters and salt, no digest), so that a
 * login's hash starts as soon as the marker is read, alongside the write that counts the attempt
 * and reads the user (grants/user-login.ts). A hint, never trusted: the login compares against the
 * user's own hash and hashes again when the prefix differs.
 */
export const loginMarkerAttributes = (passwordHash: string | undefined): Record<string, string> => {
  const prefix = passwordHashPrefix(passwordHash);
  return prefix === undefined ? {} : { password_prefix: prefix };
};

/**
 * Writes the prefix of `passwordHash` on the user's login markers: after a password change or a
 * rehash, and when a login attempt found a marker without the prefix of the user's hash. ONE
 * transaction: a ConditionCheck that `passwordHash` is still the user's hash, and each marker's
 * update while it still names this user. So a login that read the user just before a password
 * change cannot put the old prefix back after the change wrote the new one. It never throws: a
 * failed or refused write leaves a stale prefix, which costs the next attempt a second hash (and
 * that attempt writes it again), never a wrong answer; an error here must not fail a login or a
 * password change that is already stored. No hash, no write (a user never loses its password).
 */
export type LoginHintWrite = (
  user: Pick<UserRecord, 'id' | 'tenant_id' | UserLoginKind>,
  passwordHash: string | undefined,
) => Promise<void>;

export function loginHintWrite(db: DynamoDBDocumentClient, tableName: string): LoginHintWrite {
  return async (user, passwordHash) => {
    const prefix = passwordHashPrefix(passwordHash);
    const markers = userLoginMarkers(user);
    if (prefix === undefined || !markers.length) return;
    await db
      .send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: tableName,
                Key: keys.user(user.id),
                ConditionExpression: 'password_hash = :hash',
                ExpressionAttributeValues: { ':hash': passwordHash },
              },
            },
            ...markers.map((Key) => ({
              Update: {
                TableName: tableName,
                Key,
                UpdateExpression: 'SET password_prefix = :prefix',
                ConditionExpression: 'target_id = :id',
                ExpressionAttributeValues: { ':id': user.id, ':prefix': prefix },
              },
            })),
          ],
        }),
      )
      .catch(() => {});
  };
}
