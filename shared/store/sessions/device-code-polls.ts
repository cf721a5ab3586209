import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { toRecord } from '../core/entity.ts';
import { getItem } from '../core/reads/read-items.ts';
import { secretHash } from '../core/secret-hash.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import type { AuthMethod } from './sessions-repository.ts';

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
  /** How the person who approved signed in (RFC 8176), for the ID token's `amr`. */
  amr?: AuthMethod[];
  granted_scopes?: string[];
  decided_at?: string;
}

/** What one poll found (RFC 8628 §3.5), before any token is minted. */
export type PollOutcome =
  | { outcome: 'issue'; device: DeviceCodeRecord }
  | { outcome: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant' };

/**
 * The token endpoint's side of device authorizations (RFC 8628 §3.4, §3.5): polls, apart from the
 * repository's creation and the `/device` page's decision, which the token function does not
 * bundle (docs/benchmarks.md "Token function bundle, third round"); the repository
 * (device-codes-repository.ts) offers the same `poll` with them.
 */
export interface DeviceCodePolls {
  /**
   * One poll of `/token` by `clientId` (RFC 8628 §3.4, §3.5): unknown or another client's code →
   * `invalid_grant`; past `expires_at` → `expired_token`; denied → `access_denied`; pending → one
   * conditional write records the poll: `slow_down` (and interval + 5 s) when it came sooner than
   * the interval after the last one, else `authorization_pending`; approved → one conditional write
   * `approved → used`: of any number of concurrent polls exactly one gets `issue`.
   */
  poll(deviceCode: string, clientId: string): Promise<PollOutcome>;
}

/** The SHA-256 a device code is stored under (the tickets' hash: one rule for one-time values). */
export const deviceCodeHash = secretHash;

/** 32 random bytes, base64url: 43 characters. */
const DEVICE_CODE = /^[A-Za-z0-9_-]{43}$/;

/** RFC 8628 §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests". */
export const SLOW_DOWN_STEP_SECONDS = 5;

const isConditionFailure = (err: unknown) => (err as { name?: string }).name === 'ConditionalCheckFailedException';

/** The device item's reads and conditional writes, shared by the polls and the repository. */
export function deviceItems(db: DynamoDBDocumentClient, tableName: string, now: () => Date) {
  return {
    async read(hash: string): Promise<DeviceCodeRecord | undefined> {
      const item = await getItem(db, tableName, keys.deviceCode(hash), now());
      return item ? toRecord<DeviceCodeRecord>(item) : undefined;
    },
    /** One conditional UpdateItem; false when its condition failed. */
    async update(input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>): Promise<boolean> {
      try {
        await db.send(new UpdateCommand({ TableName: tableName, ...input }));
        return true;
      } catch (err) {
        if (isConditionFailure(err)) return false;
        return translateError(err);
      }
    },
  };
}

export function deviceCodePolls(db: DynamoDBDocumentClient, tableName: string, now: () => Date): DeviceCodePolls {
  const items = deviceItems(db, tableName, now);
  return {
    async poll(deviceCode, clientId) {
      if (!DEVICE_CODE.test(deviceCode)) return { outcome: 'invalid_grant' };
      const hash = deviceCodeHash(deviceCode);
      const device = await items.read(hash);
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
          const won = await items.update({
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
          const recorded = await items.update({
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
  };
}
