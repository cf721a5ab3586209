import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { FoldedEvent } from '../../ports/event-log.ts';
import { newUserCode } from '../../records/user-code.ts';
import { entity } from '../core/entity.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { ttlOf } from '../core/ttl.ts';
import { sendWithEvents } from '../events/send-with-events.ts';
import { type DeviceCodePolls, type DeviceCodeRecord, deviceCodeHash, deviceCodePolls, deviceItems } from './device-code-polls.ts';
import type { AuthMethod } from './sessions-repository.ts';

// The record, its statuses and a poll's outcome are device-code-polls.ts's (the token path's side).
export type { DeviceCodeRecord, DeviceCodeStatus, PollOutcome } from './device-code-polls.ts';
export { deviceCodeHash, SLOW_DOWN_STEP_SECONDS } from './device-code-polls.ts';

export interface NewDeviceCode {
  clientId: string;
  tenantId: string;
  scopes: string[];
  audience?: string | undefined;
  resourceId?: string | undefined;
  lifetimeSeconds: number;
  intervalSeconds: number;
}

export interface Decision {
  decision: 'allow' | 'deny';
  userId: string;
  authTime: number;
  /** The login's RFC 8176 `amr`, for the ID token; absent on an interaction recorded before it was kept. */
  amr?: AuthMethod[] | undefined;
  grantedScopes: string[];
}

/**
 * Device authorizations (RFC 8628). Two items per request, written together:
 * `DEVICE#{sha256(device_code)}` / `DEVICE` (the DeviceCodeRecord) and
 * `USER_CODE#{normalised user code}` / `USER_CODE` (`device_hash`, `expires_at`), both with `ttl`.
 * Every state change is ONE conditional UpdateItem on the device item. The token endpoint's polls
 * are device-code-polls.ts's, spread in here.
 */
export interface DeviceCodesRepository extends DeviceCodePolls {
  /** Stores a new authorization; returns the device code (its only copy) and the record. */
  create(input: NewDeviceCode): Promise<{ deviceCode: string; device: DeviceCodeRecord }>;
  /** The live, pending authorization a (normalised) user code names; undefined for any other. */
  findPendingByUserCode(userCode: string): Promise<DeviceCodeRecord | undefined>;
  /**
   * Records the user's decision on a pending, live authorization (one conditional write); false if
   * it is not pending any more. `events` (`device.approved` / `device.denied`) ride on that write:
   * a second decision of the same code writes nothing and records nothing.
   */
  decide(hash: string, decision: Decision, events?: readonly FoldedEvent[]): Promise<boolean>;
}

/** How long a device item outlives its expiry (RFC 8628 §3.5 `expired_token` for late polls). */
const EXPIRED_KEPT_SECONDS = 3600;

const userCodeCollision = (err: unknown) =>
  (err as { name?: string; CancellationReasons?: { Code?: string }[] }).name === 'TransactionCanceledException' &&
  (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons?.[1]?.Code === 'ConditionalCheckFailed';

export function deviceCodesRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): DeviceCodesRepository {
  const items = deviceItems(db, tableName, now);
  return {
    ...deviceCodePolls(db, tableName, now),
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
      const device = await items.read(pointer.device_hash);
      const live = device && device.user_code === userCode && Date.parse(device.expires_at) > now().getTime();
      return live && device.status === 'pending' ? device : undefined;
    },

    async decide(hash, { decision, userId, authTime, amr, grantedScopes }, events) {
      const at = now();
      const update = {
        TableName: tableName,
        Key: keys.deviceCode(hash),
        UpdateExpression: `SET #status = :status, user_id = :user, auth_time = :authTime, granted_scopes = :scopes, decided_at = :now${amr ? ', amr = :amr' : ''}`,
        ConditionExpression: '#status = :pending AND expires_at > :now',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': decision === 'allow' ? 'approved' : 'denied',
          ':user': userId,
          ':authTime': authTime,
          ':scopes': grantedScopes,
          ':now': at.toISOString(),
          ':pending': 'pending',
          ...(amr ? { ':amr': amr } : {}),
        },
      };
      try {
        await sendWithEvents(db, { Update: update }, events);
        return true;
      } catch (err) {
        if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return false;
        return translateError(err);
      }
    },
  };
}
