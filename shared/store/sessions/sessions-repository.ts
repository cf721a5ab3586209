import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UserRecord } from '../../records/user-record.ts';
import { entity, toRecord } from '../core/entity.ts';
import { queryAll } from '../core/reads/query-all.ts';
import { getItem } from '../core/reads/read-items.ts';
import { secretHash } from '../core/secret-hash.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { ttlOf } from '../core/ttl.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { addWithCap, cappedEntry } from '../users/user-caps.ts';

/** Session length (docs/browser-flows.md): 24 h absolute, no sliding; cookie Max-Age and `expires_at` agree. */
export const SESSION_LIFETIME_SECONDS = 24 * 3600;

/** Live sessions a user keeps by default (config `USER_MAX_SESSIONS`). */
export const DEFAULT_MAX_SESSIONS = 50;

/**
 * How the user proved who they are (RFC 8176 `amr` values): `pwd` a password, `otp` a TOTP code,
 * `hwk` / `swk` a passkey bound to one device / synced (docs/passkeys.md "amr and acr"), `mfa` more
 * than one factor (a password and a second factor, or a passkey with user verification); `fed` a
 * sign-in at an external provider (docs/federation.md "Federated login": RFC 8176 has no value for it).
 */
export type AuthMethod = 'pwd' | 'otp' | 'hwk' | 'swk' | 'mfa' | 'fed';

/** A browser session as stored at `SESSION#{sha256(cookie)}` / `SESSION` (the cookie value is never stored). */
export interface SessionRecord {
  id: string;
  user_id: string;
  tenant_id: string;
  /** NumericDate of the login (OIDC Core `auth_time`). */
  auth_time: number;
  amr: AuthMethod[];
  created_at: string;
  expires_at: string;
  /** Set by logout, or when the user is blocked or deleted. */
  ended_at?: string;
}

export interface NewSession {
  userId: string;
  tenantId: string;
  authTime: number;
  amr: AuthMethod[];
}

export interface SessionsRepository {
  /**
   * Stores a new session; returns the cookie value (its only copy) and the record. The same
   * transaction lists it on the user item (`live_sessions`, user-caps.ts): past `maxSessions` the
   * user's oldest sessions are deleted in it (docs/security.md "Caps"). A user deleted meanwhile
   * gets no session: the value returned then opens nothing, as a session of a missing user never
   * does.
   */
  createSession(input: NewSession): Promise<{ value: string; session: SessionRecord }>;
  /**
   * The live session of a cookie value: undefined when the value is malformed or unknown, the
   * session expired or ended, or its user is gone, blocked, in another tenant, or had every token
   * revoked after the session began (`tokens_revoked_at`: a password change). The user is read
   * consistently, so a block is seen at once even if ending its sessions has not finished.
   */
  findSession(cookieValue: string): Promise<SessionRecord | undefined>;
  /** Ends the session of a cookie value (logout); idempotent, nothing for an unknown value. */
  endSession(cookieValue: string): Promise<void>;
  /** Ends every session of a user (block, delete), through GSI2 `USER#{u}#SESSIONS`; returns how many it ended. */
  endUserSessions(userId: string): Promise<number>;
}

/** 32 bytes in base64url: exactly 43 characters of the URL-safe alphabet. */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

export const sessionHash = secretHash;

/** A user who may still use a session begun at `createdAt`. */
export function userKeepsSession(user: UserRecord | undefined, session: Pick<SessionRecord, 'tenant_id' | 'created_at'>): boolean {
  if (!user || user.blocked || user.tenant_id !== session.tenant_id) return false;
  return user.tokens_revoked_at === undefined || user.tokens_revoked_at <= session.created_at;
}

export function sessionsRepository(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  maxSessions: number = DEFAULT_MAX_SESSIONS,
): SessionsRepository {
  const end = async (key: { PK: string; SK: string }, at: Date): Promise<boolean> => {
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'SET ended_at = :at',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(ended_at)',
          ExpressionAttributeValues: { ':at': at.toISOString() },
        }),
      );
      return true;
    } catch (err) {
      if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return false;
      return translateError(err);
    }
  };

  return {
    async createSession({ userId, tenantId, authTime, amr }) {
      const value = randomBytes(32).toString('base64url');
      const at = now();
      const expires = new Date(at.getTime() + SESSION_LIFETIME_SECONDS * 1000);
      const session: SessionRecord = {
        id: uuidv7(),
        user_id: userId,
        tenant_id: tenantId,
        auth_time: authTime,
        amr,
        created_at: at.toISOString(),
        expires_at: expires.toISOString(),
      };
      const hash = sessionHash(value);
      await addWithCap(db, tableName, {
        userId,
        list: {
          attribute: 'live_sessions',
          cap: maxSessions,
          // A session pushed out is deleted: its cookie opens nothing any more.
          end: (oldest) => ({ Delete: { TableName: tableName, Key: keys.session(oldest) } }),
        },
        entry: cappedEntry(hash, ttlOf(expires)),
        nowSeconds: () => ttlOf(now()),
        user: { expression: 'attribute_exists(PK)', refuses: (item) => !item },
        items: [
          {
            Put: {
              TableName: tableName,
              Item: {
                ...keys.session(hash),
                ...entity('Session'),
                GSI2PK: keys.userSessions(userId),
                GSI2SK: session.id,
                ...session,
                ttl: ttlOf(expires),
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        ],
        failed: (_reasons, err) => translateError(err),
      });
      return { value, session };
    },

    async findSession(cookieValue) {
      if (!COOKIE_VALUE.test(cookieValue)) return undefined;
      const at = now();
      const item = await getItem(db, tableName, keys.session(sessionHash(cookieValue)), at);
      if (item?.type !== 'Session') return undefined;
      const session = toRecord<SessionRecord>(item);
      if (session.ended_at || Date.parse(session.expires_at) <= at.getTime()) return undefined;
      const user = await getItem(db, tableName, keys.user(session.user_id), at);
      return userKeepsSession(user as UserRecord | undefined, session) ? session : undefined;
    },

    async endSession(cookieValue) {
      if (!COOKIE_VALUE.test(cookieValue)) return;
      await end(keys.session(sessionHash(cookieValue)), now());
    },

    async endUserSessions(userId) {
      const at = now();
      const items = await queryAll(db, {
        TableName: tableName,
        IndexName: 'GSI2',
        KeyConditionExpression: '#pk = :pk',
        FilterExpression: 'attribute_not_exists(ended_at)',
        ExpressionAttributeNames: { '#pk': 'GSI2PK', '#k': 'PK', '#s': 'SK' },
        ExpressionAttributeValues: { ':pk': keys.userSessions(userId) },
        ProjectionExpression: '#k, #s',
      });
      const ended = await Promise.all(items.map((i) => end({ PK: i.PK as string, SK: i.SK as string }, at)));
      return ended.filter(Boolean).length;
    },
  };
}
