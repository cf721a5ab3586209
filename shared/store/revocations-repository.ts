import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type RevocationRef, verifierDigest } from '../tokens/revocation-ref.ts';
import { keys } from './table-keys.ts';
import { translateError } from './translate-error.ts';
import { isLive, ttlOf } from './ttl.ts';
import type { Key } from './writes.ts';

type Item = Record<string, unknown>;

/**
 * Revoked access tokens (RFC 7009 §2), bound to what verified the token and to its client
 * (API.md §8; shared/tokens/revocation-ref.ts). Item: PK `REVOKED#{jti}`, SK
 * `BOUND#{sha256(verifier)}`, `verifier`, `client_id` (the token's client, who revoked it),
 * `ttl` (the token's exp: after that the token is dead anyway). A token is revoked when the entry
 * of its own binding exists, names its client and is live.
 *
 * Entries written before the binding (SK `REVOKED`, schema_version 1, `client_id` = the
 * revoker, which was the token's client) still count for a token of that same client; they
 * expire with the tokens they name (at most KEY_RETIRE_AFTER_SECONDS after this release), after
 * which `keys.revokedTokenUnbound` can go.
 */
export interface RevocationsRepository {
  /**
   * Records the revocation. `conflict`: this jti, under this verifier, is already revoked as
   * another client's token (only someone who holds the verifier's secret can make such a token):
   * nothing is recorded.
   */
  revoke(ref: RevocationRef, expiresAt: Date): Promise<'revoked' | 'conflict'>;
  isRevoked(ref: RevocationRef): Promise<boolean>;
  /** Lets a caller fold the revocation check into its own BatchGetItem (cached-revocations.ts). */
  readonly feed?: RevocationFeed;
}

export interface RevocationFeed {
  /** The items to read for `ref`, or [] when the answer is already known here. */
  wanted(ref: RevocationRef): Key[];
  /** What that read found, by item (undefined: no such item). */
  offer(ref: RevocationRef, found: (key: Key) => Item | undefined): void;
}

/** The items that can revoke the token of `ref`: its bound entry and the old unbound one. */
export const revocationKeys = (ref: RevocationRef): Key[] => [
  keys.revokedToken(ref.jti, verifierDigest(ref)),
  keys.revokedTokenUnbound(ref.jti),
];

/** Do these stored items (any entries of the token's jti) revoke the token of `ref`? */
export function revokes(ref: RevocationRef, items: readonly (Item | undefined)[], now: Date): boolean {
  const bound = keys.revokedToken(ref.jti, verifierDigest(ref)).SK;
  const unbound = keys.revokedTokenUnbound(ref.jti).SK;
  return items.some((i) => i !== undefined && isLive(i, now) && i.client_id === ref.clientId && (i.SK === bound || i.SK === unbound));
}

export function revocationsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): RevocationsRepository {
  return {
    async revoke(ref, expiresAt) {
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...keys.revokedToken(ref.jti, verifierDigest(ref)),
              type: 'RevokedToken',
              schema_version: 2,
              verifier: ref.verifier,
              client_id: ref.clientId,
              ttl: ttlOf(expiresAt),
            },
            // A jti is bound to the first client that revoked it under this verifier: a second
            // client's token with the same jti and verifier is a forgery and must not take it over.
            ConditionExpression: 'attribute_not_exists(PK) OR client_id = :client',
            ExpressionAttributeValues: { ':client': ref.clientId },
          }),
        );
        return 'revoked';
      } catch (err) {
        if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return 'conflict';
        return translateError(err);
      }
    },
    async isRevoked(ref) {
      // One Query of the jti's partition reads the bound entry and the unbound one together
      // (one read unit: the entries are a few dozen bytes).
      try {
        const { Items } = await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': keys.revokedTokenPartition(ref.jti) },
          }),
        );
        return revokes(ref, Items ?? [], now());
      } catch (err) {
        return translateError(err);
      }
    },
  };
}
