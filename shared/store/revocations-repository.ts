import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.ts';
import { isLive, ttlOf } from './ttl.ts';
import { translateError } from './translate-error.ts';

/**
 * Revoked access tokens by `jti` (RFC 7009 §2). An entry lives until the token's own expiry (its
 * TTL), after which the token is dead anyway. Item: PK `REVOKED#{jti}`, SK `REVOKED`,
 * `client_id` (who revoked), `ttl` (token exp, epoch seconds).
 */
export interface RevocationsRepository {
  revoke(jti: string, clientId: string, expiresAt: Date): Promise<void>;
  isRevoked(jti: string): Promise<boolean>;
  /** Lets a caller fold the revocation check into its own BatchGetItem (cached-revocations.ts). */
  readonly feed?: RevocationFeed;
}

export interface RevocationFeed {
  /** The item to read for `jti`, or undefined when the answer is already known here. */
  wanted(jti: string): { PK: string; SK: string } | undefined;
  /** What that read found (undefined: no item, i.e. not revoked). */
  offer(jti: string, item: Record<string, unknown> | undefined): void;
}

/** Is this stored item a live revocation? (An entry past its ttl is a token that expired anyway.) */
export const isRevocation = (item: Record<string, unknown> | undefined, now: Date): boolean => item !== undefined && isLive(item, now);

export function revocationsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): RevocationsRepository {
  return {
    async revoke(jti, clientId, expiresAt) {
      try {
        await db.send(new PutCommand({
          TableName: tableName,
          Item: { ...keys.revokedToken(jti), type: 'RevokedToken', schema_version: 1, client_id: clientId, ttl: ttlOf(expiresAt) },
        }));
      } catch (err) {
        translateError(err);
      }
    },
    async isRevoked(jti) {
      try {
        const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.revokedToken(jti) }));
        return isRevocation(Item, now());
      } catch (err) {
        return translateError(err);
      }
    },
  };
}
