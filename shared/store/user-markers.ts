import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { USER_LOGIN_KINDS, type UserLoginKind, type UserRecord, userMarkerValue } from '../records/user-record.ts';
import { passwordHashPrefix } from '../users/password-hash.ts';
import { keys, type MarkerKind } from './table-keys.ts';
import { translateError } from './translate-error.ts';

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
 * Writes the prefix of `passwordHash` on the user's login markers: after a password change, a
 * rehash, or a login that found a marker without the current prefix (no hash, no write: a user
 * never loses its password, and a stale prefix is harmless anyway). Each
 * marker only while it still names this user. Not in the transaction of the hash it follows: a
 * race between two changes can leave the older prefix, which costs the next login a second hash
 * (and is rewritten by its success), never a wrong answer.
 */
export type LoginHintWrite = (
  user: Pick<UserRecord, 'id' | 'tenant_id' | UserLoginKind>,
  passwordHash: string | undefined,
) => Promise<void>;

export function loginHintWrite(db: DynamoDBDocumentClient, tableName: string): LoginHintWrite {
  return async (user, passwordHash) => {
    const prefix = passwordHashPrefix(passwordHash);
    if (prefix === undefined) return;
    await Promise.all(
      userLoginMarkers(user).map(async (key) => {
        try {
          await db.send(
            new UpdateCommand({
              TableName: tableName,
              Key: key,
              UpdateExpression: 'SET password_prefix = :prefix',
              ConditionExpression: 'target_id = :id',
              ExpressionAttributeValues: { ':id': user.id, ':prefix': prefix },
            }),
          );
        } catch (err) {
          // The identifier moved to another user (or was freed) meanwhile: its marker is not this user's.
          if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') translateError(err);
        }
      }),
    );
  };
}
