import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newUserCode } from '../oauth/device/user-code.ts';
import { entity, toRecord } from './entity.ts';
import { getItem } from './read-items.ts';
import { secretHash } from './secret-hash.ts';
import { keys } from './table-keys.ts';
import { translateError } from './translate-error.ts';
import { ttlOf } from './ttl.ts';

/** `pending` until the user decides on the `/device` page; `used` once a token was issued for it. */
export type DeviceCodeStatus = 'pending' | 'approved' | 'denied' | 'used';

/** A device authorization as stored (RFC 8628 §3.2); never the device code itself, only its SHA-256. */
export interface DeviceCodeRecord {
  /** SHA-256 (base64url) of the device code: the item's key. */
  hash: string;
  client_id: string;
  tenant_id: string;
  /** The requested scopes (RFC 8628 §3.1 `scope`). */
  scopes: string[];
  /** The requested `audience` / RFC 8707 `resource`, as sent. */
  audience?: string;
  /** The Resource it names (for consent and remembered grants). */
  resource_id?: string;
  /** Normalised (8 characters, no dash). */
  user_code: string;
  status: DeviceCodeStatus;
  /** Seconds the device must wait between polls; `slow_down` raises it by 5 (RFC 8628 §3.5). */
  interval: number;
  /** Epoch ms of the last poll. */
  last_poll_at?: number;
  created_at: string;
  expires_at: string;
  /** Set by the decision on the `/device` page. */
  user_id?: string;
  auth_time?: number;
  granted_scopes?: string[];
  decided_at?: string;
}

export interface NewDeviceCode {
  clientId: string;
  tenantId: string;
  scopes: string[];
  audience?: string | undefined;
  resourceId?: string | undefined;
  lifetimeSeconds: number;
  intervalSeconds: number;
}

/** What one poll found (RFC 8628 §3.5), before any token is minted. */
export type PollOutcome =
  | { outcome: 'issue'; device: DeviceCodeRecord }
  | { outcome: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant' };

export interface Decision {
  decision: 'allow' | 'deny';
  userId: string;
  authTime: number;
  grantedScopes: string[];
}

/**
 * Device authorizations (RFC 8628). Two items per request, written together:
 * `DEVICE#{sha256(device_code)}` / `DEVICE` (the DeviceCodeRecord) and
 * `USER_CODE#{normalised user code}` / `USER_CODE` (`device_hash`, `expires_at`), both with `ttl`.
 * Every state change is ONE conditional UpdateItem on the device item.
 */
export interface DeviceCodesRepository {
  /** Stores a new authorization; returns the device code (its only copy) and the record. */
  create(input: NewDeviceCode): Promise<{ deviceCode: string; device: DeviceCodeRecord }>;
  /** The live, pending authorization a (normalised) user code names; undefined for any other. */
  findPendingByUserCode(userCode: string): Promise<DeviceCodeRecord | undefined>;
  /**
   * One poll of `/token` by `clientId` (RFC 8628 §3.4, §3.5): unknown or another client's code →
   * `invalid_grant`; past `expires_at` → `expired_token`; denied → `access_denied`; pending → one
   * conditional write records the poll: `slow_down` (and interval + 5 s) when it came sooner than
   * the interval after the last one, else `authorization_pending`; approved → one conditional write
   * `approved → used`: of any number of concurrent polls exactly one gets `issue`.
   */
  poll(deviceCode: string, clientId: string): Promise<PollOutcome>;
  /** Records the user's decision on a pending, live authorization (one conditional write); false if it is not pending any more. */
  decide(hash: string, decision: Decision): Promise<boolean>;
}

/** The SHA-256 a device code is stored under (the tickets' hash: one rule for one-time values). */
export const deviceCodeHash = secretHash;

/** How long a device item outlives its expiry (RFC 8628 §3.5 `expired_token` for late polls). */
const EXPIRED_KEPT_SECONDS = 3600;

/** 32 random bytes, base64url: 43 characters. */
const DEVICE_CODE = /^[A-Za-z0-9_-]{43}$/;

/** RFC 8628 §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests". */
export const SLOW_DOWN_STEP_SECONDS = 5;

const isConditionFailure = (err: unknown) => (err as { name?: string }).name === 'ConditionalCheckFailedException';
const userCodeCollision = (err: unknown) =>
  (err as { name?: string; CancellationReasons?: { Code?: string }[] }).name === 'TransactionCanceledException' &&
  (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons?.[1]?.Code === 'ConditionalCheckFailed';

export function deviceCodesRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): DeviceCodesRepository {
  const readDevice = async (hash: string) => {
    const item = await getItem(db, tableName, keys.deviceCode(hash), now());
    return item ? toRecord<DeviceCodeRecord>(item) : undefined;
  };
  /** One conditional UpdateItem; false when its condition failed. */
  const update = async (input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>): Promise<boolean> => {
    try {
      await db.send(new UpdateCommand({ TableName: tableName, ...input }));
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      return translateError(err);
    }
  };

  return {
    async create(input) {
      const deviceCode = randomBytes(32).toString('base64url');
      const hash = deviceCodeHash(deviceCode);
      const at = now();
      const expires = new Date(at.getTime() + input.lifetimeSeconds * 1000);
      // 20^8 codes: a collision with a live one is rare but possible, so the user-code item is
      // written only where none exists, and a collision draws a new code.
      for (let attempt = 0; ; attempt++) {
        const device: DeviceCodeRecord = {
          hash,
          client_id: input.clientId,
          tenant_id: input.tenantId,
          scopes: input.scopes,
          ...(input.audience !== undefined ? { audience: input.audience } : {}),
          ...(input.resourceId !== undefined ? { resource_id: input.resourceId } : {}),
          user_code: newUserCode(),
          status: 'pending',
          interval: input.intervalSeconds,
          created_at: at.toISOString(),
          expires_at: expires.toISOString(),
        };
        try {
          await db.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Put: {
                    TableName: tableName,
                    // Kept an hour past its expiry, so a late poll hears `expired_token`, not `invalid_grant`.
                    Item: { ...keys.deviceCode(hash), ...entity('DeviceCode'), ...device, ttl: ttlOf(expires) + EXPIRED_KEPT_SECONDS },
                    ConditionExpression: 'attribute_not_exists(PK)',
                  },
                },
                {
                  Put: {
                    TableName: tableName,
                    Item: {
                      ...keys.deviceUserCode(device.user_code),
                      ...entity('DeviceUserCode'),
                      device_hash: hash,
                      expires_at: device.expires_at,
                      ttl: ttlOf(expires),
                    },
                    // A code whose item outlived its expiry (the TTL sweep lags) may be taken again.
                    ConditionExpression: 'attribute_not_exists(PK) OR expires_at <= :now',
                    ExpressionAttributeValues: { ':now': at.toISOString() },
                  },
                },
              ],
            }),
          );
          return { deviceCode, device };
        } catch (err) {
          if (!userCodeCollision(err) || attempt >= 4) return translateError(err);
        }
      }
    },

    async findPendingByUserCode(userCode) {
      const pointer = await getItem(db, tableName, keys.deviceUserCode(userCode), now());
      if (typeof pointer?.device_hash !== 'string') return undefined;
      const device = await readDevice(pointer.device_hash);
      const live = device && device.user_code === userCode && Date.parse(device.expires_at) > now().getTime();
      return live && device.status === 'pending' ? device : undefined;
    },

    async poll(deviceCode, clientId) {
      if (!DEVICE_CODE.test(deviceCode)) return { outcome: 'invalid_grant' };
      const hash = deviceCodeHash(deviceCode);
      const device = await readDevice(hash);
      // RFC 8628 §3.5 / RFC 6749 §5.2: a code issued to another client is invalid_grant, like an unknown one.
      if (!device || device.client_id !== clientId) return { outcome: 'invalid_grant' };
      const at = now();
      if (Date.parse(device.expires_at) <= at.getTime()) return { outcome: 'expired_token' };
      switch (device.status) {
        case 'denied':
          return { outcome: 'access_denied' };
        case 'used':
          return { outcome: 'invalid_grant' };
        case 'approved': {
          // Single use: only the first of concurrent redemptions flips approved → used.
          const won = await update({
            Key: keys.deviceCode(hash),
            UpdateExpression: 'SET #status = :used, used_at = :now',
            ConditionExpression: '#status = :approved AND expires_at > :now',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':used': 'used', ':approved': 'approved', ':now': at.toISOString() },
          });
          return won ? { outcome: 'issue', device } : { outcome: 'invalid_grant' };
        }
        default: {
          const tooSoon = device.last_poll_at !== undefined && at.getTime() - device.last_poll_at < device.interval * 1000;
          // The poll is recorded against the last one read: a concurrent poll (or the decision)
          // makes the condition fail, and a device polling in parallel is polling too fast anyway.
          const recorded = await update({
            Key: keys.deviceCode(hash),
            UpdateExpression: tooSoon ? 'SET last_poll_at = :now, #interval = #interval + :step' : 'SET last_poll_at = :now',
            ConditionExpression:
              device.last_poll_at === undefined
                ? '#status = :pending AND attribute_not_exists(last_poll_at)'
                : '#status = :pending AND last_poll_at = :last',
            ExpressionAttributeNames: { '#status': 'status', ...(tooSoon ? { '#interval': 'interval' } : {}) },
            ExpressionAttributeValues: {
              ':now': at.getTime(),
              ':pending': 'pending',
              ...(tooSoon ? { ':step': SLOW_DOWN_STEP_SECONDS } : {}),
              ...(device.last_poll_at === undefined ? {} : { ':last': device.last_poll_at }),
            },
          });
          return { outcome: tooSoon || !recorded ? 'slow_down' : 'authorization_pending' };
        }
      }
    },

    decide(hash, { decision, userId, authTime, grantedScopes }) {
      const at = now();
      return update({
        Key: keys.deviceCode(hash),
        UpdateExpression: 'SET #status = :status, user_id = :user, auth_time = :authTime, granted_scopes = :scopes, decided_at = :now',
        ConditionExpression: '#status = :pending AND expires_at > :now',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': decision === 'allow' ? 'approved' : 'denied',
          ':user': userId,
          ':authTime': authTime,
          ':scopes': grantedScopes,
          ':now': at.toISOString(),
          ':pending': 'pending',
        },
      });
    },
  };
}
