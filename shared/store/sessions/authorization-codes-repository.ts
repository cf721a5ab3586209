import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { entity, toRecord } from '../core/entity.ts';
import { secretHash } from '../core/secret-hash.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { ttlOf } from '../core/ttl.ts';
import type { AuthMethod } from './sessions-repository.ts';

/** Pinned (docs/browser-flows.md): a code lives 60 s (RFC 6749 §4.1.2 "a maximum lifetime of 10 minutes is RECOMMENDED"; shorter is safer). */
export const CODE_LIFETIME_SECONDS = 60;

/** What an authorization code stands for (RFC 6749 §4.1.2): everything `/token` needs to issue from it. */
export interface AuthorizationCodeRecord {
  client_id: string;
  tenant_id: string;
  user_id: string;
  /** The `redirect_uri` of the authorization request, which `/token` must see again (§4.1.3). */
  redirect_uri: string;
  /** The scopes the user granted. */
  scope: string[];
  /** `audience`/`resource` of the request, as named; absent: a `/userinfo` token. */
  audience?: string;
  nonce?: string;
  /** RFC 7636 S256 challenge; absent when the client sent none (confidential clients only). */
  code_challenge?: string;
  /** NumericDate of the login (OIDC Core `auth_time`). */
  auth_time: number;
  /** How the person signed in (RFC 8176), for the ID token's `amr`; absent on codes of older interactions. */
  amr?: AuthMethod[];
  /** The `acr` the login met of those the request asked for (docs/passkeys.md "amr and acr"). */
  acr?: string;
  /** The login family of every token issued from this code: a second redemption revokes it. */
  sid: string;
  /** The browser session the code came from. */
  session_id: string;
  created_at: string;
  expires_at: string;
  used_at?: string;
}

export type CodeInput = Omit<AuthorizationCodeRecord, 'created_at' | 'expires_at' | 'used_at'>;

/** What the redeemer presents; the conditional write checks each of them with "unused and live". */
export interface Redemption {
  clientId: string;
  redirectUri: string;
  /** The verifier's S256 challenge (RFC 7636 §4.6); undefined: no verifier sent, so the code must have no challenge. */
  challenge: string | undefined;
}

export type RedeemOutcome =
  | { state: 'redeemed'; code: AuthorizationCodeRecord }
  /** Redeemed before: RFC 6749 §4.1.2 "SHOULD revoke ... all tokens previously issued based on that code". */
  | { state: 'reused'; code: AuthorizationCodeRecord }
  /** Unknown, expired, or presented with another client, redirect URI or verifier. */
  | { state: 'refused' };

export interface AuthorizationCodesRepository {
  /** Stores a new code (only its SHA-256) and returns its value: 32 random bytes, base64url. */
  issue(input: CodeInput): Promise<string>;
  /**
   * Redeems with ONE conditional UpdateItem: the code exists, is unused and live, and was issued to
   * this client, for this redirect URI, with this challenge (or none). Of any number of concurrent
   * redemptions exactly one is `redeemed`. A refused one reads the item once to tell reuse apart.
   */
  redeem(code: string, presented: Redemption): Promise<RedeemOutcome>;
}

/** 32 bytes in base64url: exactly 43 characters. Anything else was never issued. */
const CODE_VALUE = /^[A-Za-z0-9_-]{43}$/;

export const codeHash = secretHash;

export function authorizationCodesRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): AuthorizationCodesRepository {
  return {
    async issue(input) {
      const value = randomBytes(32).toString('base64url');
      const at = now();
      const expires = new Date(at.getTime() + CODE_LIFETIME_SECONDS * 1000);
      const record: AuthorizationCodeRecord = { ...input, created_at: at.toISOString(), expires_at: expires.toISOString() };
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            // TTL a little later than the expiry: a reuse shortly after still finds the item and revokes.
            Item: { ...keys.authorizationCode(codeHash(value)), ...entity('AuthorizationCode'), ...record, ttl: ttlOf(expires) + 3600 },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
      } catch (err) {
        return translateError(err);
      }
      return value;
    },

    async redeem(value, presented) {
      if (!CODE_VALUE.test(value)) return { state: 'refused' };
      const key = keys.authorizationCode(codeHash(value));
      const at = now().toISOString();
      const values: Record<string, unknown> = { ':now': at, ':client': presented.clientId, ':uri': presented.redirectUri };
      // RFC 9700 §2.1.1: a verifier for a code issued without a challenge is refused too (downgrade).
      let pkce = 'attribute_not_exists(code_challenge)';
      if (presented.challenge !== undefined) {
        pkce = 'code_challenge = :challenge';
        values[':challenge'] = presented.challenge;
      }
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key,
            UpdateExpression: 'SET used_at = :now',
            // ISO UTC timestamps of one format compare as strings in time order.
            ConditionExpression: `attribute_exists(PK) AND attribute_not_exists(used_at) AND expires_at > :now AND client_id = :client AND redirect_uri = :uri AND ${pkce}`,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return { state: 'redeemed', code: toRecord<AuthorizationCodeRecord>(Attributes!) };
      } catch (err) {
        if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') return translateError(err);
      }
      let item: Record<string, unknown> | undefined;
      try {
        ({ Item: item } = await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true })));
      } catch (err) {
        return translateError(err);
      }
      const code = item ? toRecord<AuthorizationCodeRecord>(item) : undefined;
      return code?.used_at ? { state: 'reused', code } : { state: 'refused' };
    },
  };
}
