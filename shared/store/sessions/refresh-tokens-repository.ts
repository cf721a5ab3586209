// One piece: issue, rotation, reuse detection and family revocation are one state machine over the same items (docs/tokens.md).
import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { FoldedEvent } from '../../ports/event-log.ts';
import { entity } from '../core/entity.ts';
import { getItem } from '../core/reads/read-items.ts';
import { RetryableConflict, withRetries } from '../core/retry.ts';
import { secretHash } from '../core/secret-hash.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { ttlOf } from '../core/ttl.ts';
import { eventPuts } from '../events/event-items.ts';
import { addWithCap, type CappedList, cappedEntry, type RawItem } from '../users/user-caps.ts';
import type { AuthMethod } from './sessions-repository.ts';

/**
 * A refresh token as stored at `keys.refreshToken(hash)`. The value itself is
 * never stored, only its SHA-256 (docs/contract.md §7.1).
 */
export interface StoredRefreshToken {
  hash: string;
  user_id: string;
  client_id: string;
  tenant_id: string;
  /** The login it comes from: the `sid` of every token of the chain. */
  family_id: string;
  scope: string[];
  /** The Resource identifier its access tokens are for; null: `{issuer}/userinfo`. */
  audience: string | null;
  /** NumericDate of the login (OIDC Core §2 `auth_time`), carried through every rotation. */
  auth_time: number;
  /** The login's RFC 8176 `amr` and the `acr` it met, carried through every rotation like `auth_time`. */
  amr?: AuthMethod[];
  acr?: string;
  created_at: string;
  /** ISO; null: the client's refresh tokens do not expire. Fixed at the login, kept on rotation. */
  expires_at: string | null;
  /** Set when it was exchanged for its successor: presenting it again is reuse. */
  rotated_at?: string;
  /**
   * RFC 9449 §5: a public client's token issued with a DPoP proof is bound to that key's
   * thumbprint; a refresh must prove the same key. Kept through rotations.
   */
  dpop_jkt?: string;
}

/** What the caller decides about a new refresh token; the repository adds value, hash and times. */
export type RefreshTokenGrant = Omit<StoredRefreshToken, 'hash' | 'created_at' | 'rotated_at' | 'expires_at'> & {
  /** Seconds from now (the client's `refresh_token.expiration_lifetime`); null: it never expires. */
  lifetime: number | null;
};

/** `rotated`: the new token is live. Anything else: nothing was written, the request is `invalid_grant`. */
export type RotateOutcome = 'rotated' | 'reused' | 'family-revoked' | 'user-refused';

export interface RefreshTokensRepository {
  /**
   * Stores a new token and opens (or joins) its family, in one transaction that also checks the
   * user: it exists, is not blocked, and has no `tokens_revoked_at` after `authorizedAt` (when what
   * authorized the token was established: the login, the code's creation, the device's approval).
   * So a code or device approval from before a password change or block never yields a refresh
   * token, whatever the 1 s user cache held. `family-revoked`: the login's family is dead;
   * `user-refused`: the user check failed. The same write lists the family on the user item
   * (`refresh_families`, user-caps.ts): past `maxFamilies` the user's oldest families are revoked
   * in that transaction (docs/security.md "Caps").
   */
  issue(grant: RefreshTokenGrant, authorizedAt: string): Promise<{ token: string } | 'family-revoked' | 'user-refused'>;
  /** The stored token with this value's hash; undefined when unknown or expired. */
  find(token: string): Promise<StoredRefreshToken | undefined>;
  /**
   * Exchanges `old` for a new token of the same grant, in ONE transaction: the old item is marked
   * rotated on condition that it is not yet (so of n parallel uses exactly one wins), the new item
   * is put, and the family (not revoked) and the user (exists, not blocked, no `tokens_revoked_at`
   * after `old` was created) are condition-checked, so a refused user or a revoked family never gets
   * a live token whatever the caches held.
   */
  rotate(old: StoredRefreshToken): Promise<{ token: string } | Exclude<RotateOutcome, 'rotated'>>;
  /**
   * Marks the family revoked: every token of it is refused, and its access tokens turn inactive (`sid`).
   * With `events` (a reuse detection's `refresh_token.reused`) the write is one transaction with
   * them, on condition that the family is not revoked yet: of n concurrent reuses one revokes it and
   * records its event; the others, and a reuse of an already revoked family, write nothing (false).
   */
  revokeFamily(familyId: string, events?: readonly FoldedEvent[]): Promise<boolean>;
}

/**
 * How long a rotated token is kept to recognise its reuse (RFC 9700 §4.14.2) when it does not
 * expire sooner: presenting it later than this is an unknown token (`invalid_grant`, no family
 * revocation). It bounds the items a never-expiring chain leaves behind.
 */
export const ROTATED_KEPT_SECONDS = 30 * 24 * 3600;

/**
 * A family outlives its last refresh token by the longest access-token lifetime (a Resource's
 * `token_lifetime` is at most 86 400 s), so a revoked family still turns every access token
 * issued from it inactive until they expire.
 */
const FAMILY_KEPT_AFTER_SECONDS = 86_400;

/** The attributes of a token item that make its StoredRefreshToken. */
const TOKEN_FIELDS = [
  'user_id',
  'client_id',
  'tenant_id',
  'family_id',
  'scope',
  'audience',
  'auth_time',
  'amr',
  'acr',
  'created_at',
  'expires_at',
  'rotated_at',
  'dpop_jkt',
] as const;

/**
 * RFC 6749 §10.10 / docs/contract.md §7.1: 256 bits from the CSPRNG, after the 16 bytes of the user's id,
 * base64url (64 characters). The id is no secret (the access token's `sub` carries it) and is
 * never trusted: it only lets the grant read the user in the same BatchGetItem as the token
 * (`userIdHint`), so a refresh costs one read whatever the caches hold. The token's item names
 * its user; a token whose hint is not a UUID is still found, it just reads the user apart.
 */
export function newRefreshTokenValue(userId: string): string {
  const id = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(userId)
    ? Buffer.from(userId.replaceAll('-', ''), 'hex')
    : randomBytes(16);
  return Buffer.concat([id, randomBytes(32)]).toString('base64url');
}

/** The user id a refresh token says it belongs to (unverified: it only chooses what to read). */
export function userIdHint(token: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{64}$/.test(token)) return undefined;
  const hex = Buffer.from(token, 'base64url').subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const refreshTokenHash = secretHash;

/** The stored token of an item read by `keys.refreshToken(hash)`; undefined for anything else. */
export function refreshTokenOfItem(item: Record<string, unknown> | undefined, hash: string): StoredRefreshToken | undefined {
  if (item?.type !== 'RefreshToken') return undefined;
  const stored: Record<string, unknown> = { hash };
  for (const f of TOKEN_FIELDS) if (item[f] !== undefined) stored[f] = item[f];
  stored.scope = typeof item.scope === 'string' && item.scope ? item.scope.split(' ') : [];
  return stored as unknown as StoredRefreshToken;
}

/** Live refresh-token families a user keeps by default (config `USER_MAX_REFRESH_FAMILIES`). */
export const DEFAULT_MAX_REFRESH_FAMILIES = 100;

export function refreshTokensRepository(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  maxFamilies: number = DEFAULT_MAX_REFRESH_FAMILIES,
): RefreshTokensRepository {
  /**
   * Decision 4: the user exists, is not blocked, and had no `tokens_revoked_at` after `since` (ISO
   * strings of one format compare as times).
   */
  const USER_AUTHORIZED =
    'attribute_exists(PK) AND blocked = :false AND (attribute_not_exists(tokens_revoked_at) OR tokens_revoked_at <= :since)';
  const userStillAuthorized = (userId: string, since: string) => ({
    ConditionCheck: {
      TableName: tableName,
      Key: keys.user(userId),
      ConditionExpression: USER_AUTHORIZED,
      ExpressionAttributeValues: { ':false': false, ':since': since },
    },
  });
  /** The same condition, read from a user item a failed condition returned. */
  const refusesUser = (since: string) => (item: RawItem | undefined) =>
    item?.blocked?.BOOL !== false || (item.tokens_revoked_at?.S ?? '') > since;

  /** The user's families, oldest first; one pushed out is revoked as a reuse detection revokes it. */
  const families: CappedList = {
    attribute: 'refresh_families',
    cap: maxFamilies,
    end: (familyId) => ({ Update: revokeFamilyUpdate(familyId) }),
  };
  const revokeFamilyUpdate = (familyId: string) => ({
    TableName: tableName,
    Key: keys.refreshFamily(familyId),
    UpdateExpression:
      'SET revoked = :true, revoked_at = if_not_exists(revoked_at, :at), #type = :type, schema_version = if_not_exists(schema_version, :sv)',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: {
      ':true': true,
      ':at': now().toISOString(),
      ':type': 'RefreshFamily',
      ':sv': entity('RefreshFamily').schema_version,
    },
  });

  /** The item of a new token: its keys, GSI1 (the user's tokens, deleted in pages with the user) and TTL. */
  const tokenItem = (grant: Omit<StoredRefreshToken, 'hash' | 'created_at' | 'rotated_at'>, hash: string, createdAt: Date) => ({
    ...keys.refreshToken(hash),
    ...entity('RefreshToken'),
    GSI1PK: keys.userRefreshTokens(grant.user_id),
    GSI1SK: hash,
    user_id: grant.user_id,
    client_id: grant.client_id,
    tenant_id: grant.tenant_id,
    family_id: grant.family_id,
    scope: grant.scope.join(' '),
    audience: grant.audience,
    auth_time: grant.auth_time,
    // Undefined ones are not written (the client's removeUndefinedValues).
    amr: grant.amr,
    acr: grant.acr,
    created_at: createdAt.toISOString(),
    expires_at: grant.expires_at,
    ...(grant.dpop_jkt ? { dpop_jkt: grant.dpop_jkt } : {}),
    ...(grant.expires_at ? { ttl: ttlOf(new Date(grant.expires_at)) } : {}),
  });

  const familyTtl = (expiresAt: string | null) => (expiresAt ? { ttl: ttlOf(new Date(expiresAt)) + FAMILY_KEPT_AFTER_SECONDS } : undefined);

  return {
    async issue({ lifetime, ...rest }, authorizedAt) {
      const token = newRefreshTokenValue(rest.user_id);
      const at = now();
      const grant = { ...rest, expires_at: lifetime === null ? null : new Date(at.getTime() + lifetime * 1000).toISOString() };
      const ttl = familyTtl(grant.expires_at);
      const added = await addWithCap(db, tableName, {
        userId: grant.user_id,
        list: families,
        entry: cappedEntry(grant.family_id, grant.expires_at ? ttlOf(new Date(grant.expires_at)) : null),
        nowSeconds: () => ttlOf(now()),
        user: {
          expression: USER_AUTHORIZED,
          values: { ':false': false, ':since': authorizedAt },
          refuses: refusesUser(authorizedAt),
        },
        items: [
          {
            Put: {
              TableName: tableName,
              Item: tokenItem(grant, refreshTokenHash(token), at),
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            // Opens the family, or joins it (another token of the same login): never a revoked one.
            Update: {
              TableName: tableName,
              Key: keys.refreshFamily(grant.family_id),
              UpdateExpression: `SET #type = :type, schema_version = :sv, user_id = :user, client_id = :client, tenant_id = :tenant, GSI1PK = :gsi1pk, GSI1SK = :gsi1sk, created_at = if_not_exists(created_at, :at), revoked = :false${ttl ? ', #ttl = :ttl' : ''}`,
              ConditionExpression: 'attribute_not_exists(revoked) OR revoked = :false',
              ExpressionAttributeNames: { '#type': 'type', ...(ttl ? { '#ttl': 'ttl' } : {}) },
              ExpressionAttributeValues: {
                ':type': 'RefreshFamily',
                ':sv': entity('RefreshFamily').schema_version,
                ':user': grant.user_id,
                ':client': grant.client_id,
                ':tenant': grant.tenant_id,
                ':gsi1pk': keys.userRefreshTokens(grant.user_id),
                ':gsi1sk': `FAMILY#${grant.family_id}`,
                ':at': at.toISOString(),
                ':false': false,
                ...(ttl ? { ':ttl': ttl.ttl } : {}),
              },
            },
          },
        ],
        failed: (reasons, err) => (reasons?.[1] === 'ConditionalCheckFailed' ? ('family-revoked' as const) : translateError(err)),
      });
      return added === 'added' ? { token } : added;
    },

    async find(token) {
      const hash = refreshTokenHash(token);
      // An item past its `ttl` (= `expires_at`) is absent for getItem even before the TTL sweep.
      return refreshTokenOfItem(await getItem(db, tableName, keys.refreshToken(hash), now()), hash);
    },

    rotate(old) {
      // A lost TransactionConflict (another transaction held one of the items) is retried: the
      // retry then sees the old token rotated (`reused`) or succeeds, so n parallel uses of one
      // token end with exactly one `rotated`, never with none.
      return withRetries(
        async () => {
          const token = newRefreshTokenValue(old.user_id);
          const at = now();
          const nowSeconds = ttlOf(at);
          const rotatedTtl = Math.min(
            nowSeconds + ROTATED_KEPT_SECONDS,
            old.expires_at ? ttlOf(new Date(old.expires_at)) : Number.POSITIVE_INFINITY,
          );
          const { hash: _hash, created_at: _created, rotated_at: _rotated, ...grant } = old;
          try {
            await db.send(
              new TransactWriteCommand({
                TransactItems: [
                  {
                    Update: {
                      TableName: tableName,
                      Key: keys.refreshToken(old.hash),
                      UpdateExpression: 'SET rotated_at = :at, #ttl = :ttl',
                      // Not yet rotated, and not expired (TTL deletes late; a read already ignored it).
                      ConditionExpression:
                        'attribute_exists(PK) AND attribute_not_exists(rotated_at) AND (attribute_not_exists(#ttl) OR #ttl > :now)',
                      ExpressionAttributeNames: { '#ttl': 'ttl' },
                      ExpressionAttributeValues: { ':at': at.toISOString(), ':ttl': rotatedTtl, ':now': nowSeconds },
                    },
                  },
                  {
                    Put: {
                      TableName: tableName,
                      Item: tokenItem(grant, refreshTokenHash(token), at),
                      ConditionExpression: 'attribute_not_exists(PK)',
                    },
                  },
                  {
                    ConditionCheck: {
                      TableName: tableName,
                      Key: keys.refreshFamily(old.family_id),
                      ConditionExpression: 'attribute_not_exists(revoked) OR revoked = :false',
                      ExpressionAttributeValues: { ':false': false },
                    },
                  },
                  // Decision 4: a token created before the user's `tokens_revoked_at` is dead.
                  userStillAuthorized(old.user_id, old.created_at),
                ],
              }),
            );
            return { token };
          } catch (err) {
            const reasons = reasonsOf(err);
            if (reasons?.[0] === 'ConditionalCheckFailed') return 'reused';
            if (reasons?.[2] === 'ConditionalCheckFailed') return 'family-revoked';
            if (reasons?.[3] === 'ConditionalCheckFailed') return 'user-refused';
            if (reasons?.includes('TransactionConflict') || (err as { name?: string }).name === 'TransactionConflictException') {
              throw new RetryableConflict('A concurrent refresh of this token was in progress.', err);
            }
            return translateError(err);
          }
        },
        { attempts: 25 },
      );
    },

    async revokeFamily(familyId, events) {
      try {
        if (!events?.length) {
          await db.send(new UpdateCommand(revokeFamilyUpdate(familyId)));
          return true;
        }
        // Not sendWithEvents: a management request's pending event must ride on its own write
        // (a withdrawn grant's delete), never on the revocation of the families it ends first.
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  ...revokeFamilyUpdate(familyId),
                  ConditionExpression: 'attribute_not_exists(revoked) OR revoked = :false',
                  ExpressionAttributeValues: { ...revokeFamilyUpdate(familyId).ExpressionAttributeValues, ':false': false },
                },
              },
              ...eventPuts(tableName, events),
            ],
          }),
        );
        return true;
      } catch (err) {
        if (reasonsOf(err)?.[0] === 'ConditionalCheckFailed') return false;
        return translateError(err);
      }
    },
  };
}

/** The per-item codes of a cancelled transaction (in TransactItems order), or undefined. */
function reasonsOf(err: unknown): (string | undefined)[] | undefined {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
  return e?.name === 'TransactionCanceledException' ? (e.CancellationReasons ?? []).map((r) => r.Code) : undefined;
}
