import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { secretHash } from '../core/secret-hash.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { ttlOf } from '../core/ttl.ts';

/**
 * What a one-time id belongs to: a client assertion (RFC 7523 §3 item 7: the `jti` "MAY be used
 * once"), a DPoP proof (RFC 9449 §11.1: a proof is accepted once within its window) or a WebAuthn
 * challenge of the hosted pages (WebAuthn Level 3 §13.4.3: a challenge serves one ceremony).
 */
export type OneTimeIdKind = 'client_assertion' | 'dpop_proof' | 'webauthn_challenge';

export interface OneTimeIds {
  /**
   * Records that `jti`, issued by `issuer` (a client id, or a DPoP key's thumbprint), was used now,
   * and keeps the record until `expiresAt` (after which the JWT that carried it is refused anyway).
   * True the first time; false for every later use, even under races: ONE conditional PutItem.
   */
  useOnce(kind: OneTimeIdKind, issuer: string, jti: string, expiresAt: Date): Promise<boolean>;
}

export function oneTimeIdsRepository(db: DynamoDBDocumentClient, tableName: string): OneTimeIds {
  return {
    async useOnce(kind, issuer, jti, expiresAt) {
      // Hashed: a jti is the sender's string, unbounded in alphabet; the key stays fixed-size.
      const key = keys.oneTimeId(kind, secretHash(`${issuer}\n${jti}`));
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...key, ttl: ttlOf(expiresAt) },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
        return true;
      } catch (err) {
        if ((err as { name?: string })?.name === 'ConditionalCheckFailedException') return false;
        return translateError(err);
      }
    },
  };
}
