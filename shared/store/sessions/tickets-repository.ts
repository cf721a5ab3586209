import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { badRequest } from '../../errors.ts';
import { resultUrlProblem } from '../../validation/result-url.ts';
import { entity, toRecord } from '../core/entity.ts';
import { secretHash } from '../core/secret-hash.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { ttlOf } from '../core/ttl.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { sendWithEvents } from '../events/send-with-events.ts';

/** What a ticket's page does: verify an address, set a password, enrol a TOTP authenticator. */
export type TicketKind = 'email_verification' | 'password_change' | 'otp_enrollment';

/** A ticket as stored (never its value: only the SHA-256 of it is the key). */
export interface TicketRecord {
  /** UUIDv7 (docs/contract.md §6 `{id, ticket, expires_at}`); tickets made before it existed have none. */
  id?: string;
  kind: TicketKind;
  user_id: string;
  tenant_id: string;
  /** The address the ticket vouches for (email verification): redeeming it verifies this address only. */
  email?: string;
  /** The client the ticket was made for (registration), if any. */
  client_id?: string;
  /** Where the page sends the browser after a success (https or loopback http, checked at creation). */
  result_url?: string;
  /** Who made it through the management API (its `sub`); none for registration's tickets. */
  created_by?: string;
  /**
   * The management scopes its maker held then: a ticket that sets a credential is refused when
   * the user holds one more by the time it is used (docs/security.md "Tickets and authenticators").
   */
  creator_scopes?: string[];
  /**
   * An authenticator enrolment's secret between the page's password step and its code step,
   * sealed with the SecretBox; removed by the redemption. Never shown by any API.
   */
  pending_otp_sealed?: string;
  created_at: string;
  expires_at: string;
  /** Set by the one redemption. */
  used_at?: string;
}

export interface NewTicket {
  kind: TicketKind;
  userId: string;
  tenantId: string;
  /** Lifetime in seconds (docs/contract.md §6 tickets: default 432000, at most 2592000). */
  ttlSeconds: number;
  email?: string | undefined;
  clientId?: string | undefined;
  resultUrl?: string | undefined;
  createdBy?: string | undefined;
  creatorScopes?: readonly string[] | undefined;
}

/**
 * What a ticket value stands for now: `valid` (live and unused; after `redeem`, redeemed by that
 * very call), `used`, `expired`, or `unknown` (never issued, malformed, or swept by the TTL).
 * `superseded` only from a `redeem` conditioned on a pending secret: the ticket is live but holds
 * another one now (a second password step replaced it).
 */
export type TicketState =
  | { state: 'valid'; ticket: TicketRecord }
  | { state: 'used' | 'expired'; ticket: TicketRecord }
  | { state: 'superseded'; ticket: TicketRecord }
  | { state: 'unknown' };

/**
 * One-time tickets (email verification, password change, authenticator enrolment). Item:
 * `TICKET#{sha256(value) base64url}` / `TICKET` with the TicketRecord fields and `ttl` (epoch
 * seconds of `expires_at`, for DynamoDB's TTL sweep, which may lag by days: every read and the
 * redemption compare `expires_at` themselves). The value is 32 random bytes (256 bits, base64url)
 * and exists only in the link: a table dump redeems nothing.
 */
export interface TicketsRepository {
  /** Stores a new ticket; returns its value (the only copy) and record. */
  create(input: NewTicket): Promise<{ value: string; ticket: TicketRecord }>;
  /** Reads a ticket's state without changing it (the page's GET: a link scanner consumes nothing). */
  find(value: string): Promise<TicketState>;
  /**
   * Redeems with ONE conditional write ("exists, of this kind, unused, not expired" → sets
   * `used_at`): of any number of concurrent redemptions exactly one gets `valid`, the others see
   * `used`. A refused redemption reads the item once more to say why.
   */
  redeem(value: string, kind: TicketKind, options?: { pendingOtpSealed?: string }): Promise<TicketState>;
  /**
   * Keeps a sealed authenticator secret on a live, unused `otp_enrollment` ticket (replacing any
   * earlier one), by one conditional write; the ticket's state otherwise. With
   * `redeem(..., { pendingOtpSealed })`, which succeeds only while that very secret is the one
   * kept, and removes it.
   */
  stagePendingOtp(value: string, sealed: string): Promise<TicketState>;
}

/** "Exists, of this kind, unused, not expired" (`:kind`, `:now`). */
const LIVE = 'attribute_exists(PK) AND attribute_not_exists(used_at) AND kind = :kind AND expires_at > :now';

const conditionFailed = (err: unknown) => (err as { name?: string }).name === 'ConditionalCheckFailedException';

/** 32 bytes in base64url: exactly 43 characters of the URL-safe alphabet. */
const TICKET_VALUE = /^[A-Za-z0-9_-]{43}$/;

export const ticketHash = secretHash;

export function ticketsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): TicketsRepository {
  const stateOf = (item: Record<string, unknown> | undefined, at: Date): TicketState => {
    if (!item) return { state: 'unknown' };
    const ticket = toRecord<TicketRecord>(item);
    if (ticket.used_at) return { state: 'used', ticket };
    if (Date.parse(ticket.expires_at) <= at.getTime()) return { state: 'expired', ticket };
    return { state: 'valid', ticket };
  };

  const read = async (value: string): Promise<Record<string, unknown> | undefined> => {
    try {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.ticket(ticketHash(value)), ConsistentRead: true }));
      return Item;
    } catch (err) {
      return translateError(err);
    }
  };

  return {
    async create(input) {
      if (input.resultUrl !== undefined) {
        const problem = resultUrlProblem(input.resultUrl);
        if (problem) throw badRequest(`body.result_url: ${problem}.`);
      }
      const value = randomBytes(32).toString('base64url');
      const at = now();
      const expires = new Date(at.getTime() + input.ttlSeconds * 1000);
      const ticket: TicketRecord = {
        id: uuidv7(),
        kind: input.kind,
        user_id: input.userId,
        tenant_id: input.tenantId,
        ...(input.email !== undefined ? { email: input.email } : {}),
        ...(input.clientId !== undefined ? { client_id: input.clientId } : {}),
        ...(input.resultUrl !== undefined ? { result_url: input.resultUrl } : {}),
        ...(input.createdBy !== undefined ? { created_by: input.createdBy } : {}),
        ...(input.creatorScopes !== undefined ? { creator_scopes: [...input.creatorScopes].sort() } : {}),
        created_at: at.toISOString(),
        expires_at: expires.toISOString(),
      };
      // Through sendWithEvents: a ticket made by the management API carries its event (docs/events.md "Management writes").
      const item = { ...keys.ticket(ticketHash(value)), ...entity('Ticket'), ...ticket, ttl: ttlOf(expires) };
      try {
        await sendWithEvents(db, { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } }, undefined);
      } catch (err) {
        translateError(err);
      }
      return { value, ticket };
    },

    async find(value) {
      if (!TICKET_VALUE.test(value)) return { state: 'unknown' };
      return stateOf(await read(value), now());
    },

    async redeem(value, kind, options = {}) {
      if (!TICKET_VALUE.test(value)) return { state: 'unknown' };
      const at = now();
      const pending = options.pendingOtpSealed;
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.ticket(ticketHash(value)),
            UpdateExpression: `SET used_at = :now${pending !== undefined ? ' REMOVE pending_otp_sealed' : ''}`,
            // ISO UTC timestamps of one format compare as strings in time order.
            ConditionExpression: `${LIVE}${pending !== undefined ? ' AND pending_otp_sealed = :sealed' : ''}`,
            ExpressionAttributeValues: {
              ':now': at.toISOString(),
              ':kind': kind,
              ...(pending !== undefined ? { ':sealed': pending } : {}),
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return { state: 'valid', ticket: toRecord<TicketRecord>(Attributes!) };
      } catch (err) {
        if (!conditionFailed(err)) return translateError(err);
      }
      const found = stateOf(await read(value), at);
      if (found.state !== 'valid') return found;
      // Live and unused: either of another kind (not this page's to redeem: as good as unknown
      // here), or the pending secret was not the one given.
      return pending !== undefined && found.ticket.kind === kind ? { state: 'superseded', ticket: found.ticket } : { state: 'unknown' };
    },

    async stagePendingOtp(value, sealed) {
      if (!TICKET_VALUE.test(value)) return { state: 'unknown' };
      const at = now();
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.ticket(ticketHash(value)),
            UpdateExpression: 'SET pending_otp_sealed = :sealed',
            ConditionExpression: LIVE,
            ExpressionAttributeValues: { ':now': at.toISOString(), ':kind': 'otp_enrollment', ':sealed': sealed },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return { state: 'valid', ticket: toRecord<TicketRecord>(Attributes!) };
      } catch (err) {
        if (!conditionFailed(err)) return translateError(err);
      }
      const found = stateOf(await read(value), at);
      return found.state === 'valid' ? { state: 'unknown' } : found;
    },
  };
}
