import { randomBytes } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { isPushedRequestUri, type PushedRequestRecord, REQUEST_URI_PREFIX } from '../../records/pushed-request-record.ts';
import { entity, toRecord } from '../core/entity.ts';
import { secretHash } from '../core/secret-hash.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { ttlOf } from '../core/ttl.ts';

export type TakeOutcome =
  | { state: 'taken'; request: PushedRequestRecord }
  /** Pushed by this client but past its `expires_at` (the item outlives it until TTL deletes it). */
  | { state: 'expired'; request: PushedRequestRecord }
  /** Unknown, already taken, or pushed by another client. */
  | { state: 'refused' };

export interface PushedRequestsRepository {
  /** Stores a pushed request under the SHA-256 of a new `request_uri` (the value itself is never stored) and returns it. */
  push(clientId: string, params: Record<string, string>, lifetimeSeconds: number): Promise<{ requestUri: string }>;
  /**
   * Takes the request once, with ONE conditional DeleteItem: it exists, was pushed by `clientId`
   * and is live. Of any number of concurrent takes exactly one is `taken`; a refused take of
   * another client leaves the item for its own client. A failed take reads the item once to tell
   * `expired` apart (its redirect URI is then trusted enough to hear the error: RFC 9126 §4).
   */
  take(requestUri: string, clientId: string): Promise<TakeOutcome>;
}

export function pushedRequestsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): PushedRequestsRepository {
  return {
    async push(clientId, params, lifetimeSeconds) {
      const requestUri = `${REQUEST_URI_PREFIX}${randomBytes(32).toString('base64url')}`;
      const at = now();
      const expires = new Date(at.getTime() + lifetimeSeconds * 1000);
      const record: PushedRequestRecord = { client_id: clientId, params, created_at: at.toISOString(), expires_at: expires.toISOString() };
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...keys.pushedRequest(secretHash(requestUri)),
              ...entity('PushedAuthorizationRequest'),
              ...record,
              ttl: ttlOf(expires),
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
      } catch (err) {
        return translateError(err);
      }
      return { requestUri };
    },

    async take(requestUri, clientId) {
      if (!isPushedRequestUri(requestUri)) return { state: 'refused' };
      const key = keys.pushedRequest(secretHash(requestUri));
      const at = now().toISOString();
      try {
        const { Attributes } = await db.send(
          new DeleteCommand({
            TableName: tableName,
            Key: key,
            // ISO UTC timestamps of one format compare as strings in time order.
            ConditionExpression: 'attribute_exists(PK) AND client_id = :client AND expires_at > :now',
            ExpressionAttributeValues: { ':client': clientId, ':now': at },
            ReturnValues: 'ALL_OLD',
          }),
        );
        return { state: 'taken', request: toRecord<PushedRequestRecord>(Attributes!) };
      } catch (err) {
        if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') return translateError(err);
      }
      let item: Record<string, unknown> | undefined;
      try {
        ({ Item: item } = await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true })));
      } catch (err) {
        return translateError(err);
      }
      if (!item || item.client_id !== clientId || String(item.expires_at) > at) return { state: 'refused' };
      return { state: 'expired', request: toRecord<PushedRequestRecord>(item) };
    },
  };
}
