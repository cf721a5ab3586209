import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { badRequest } from '../errors.ts';
import { resultUrlProblem } from '../validation/result-url.ts';
import { entity, toRecord } from './entity.ts';
import { putNewItem } from './put-new-item.ts';
import { secretHash } from './secret-hash.ts';
import { keys } from './table-keys.ts';
import { translateError } from './translate-error.ts';
import { ttlOf } from './ttl.ts';
import { uuidv7 } from './uuidv7.ts';

/** `password_change` comes with the hosted password page (issue 13). */
export type TicketKind = 'email_verification' | 'password_change';

/** A ticket as stored (never its value: only the SHA-256 of it is the key). */
export interface TicketRecord {
  /** UUIDv7 (API.md §6 `{id, ticket, expires_at}`); tickets made before it existed have none. */
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
  created_at: string;
  expires_at: string;
  /** Set by the one redemption. */
  used_at?: string;
}

export interface NewTicket {
  kind: TicketKind;
  userId: string;
  tenantId: string;
  /** Lifetime in seconds (API.md §6 tickets: default 432000, at most 2592000). */
  ttlSeconds: number;
  email?: string | undefined;
  clientId?: string | undefined;
  resultUrl?: string | undefined;
}

/**
 * What a ticket value stands for now: `valid` (live and unused; after `redeem`, redeemed by that
 * very call), `used`, `expired`, or `unknown` (never issued, malformed, or swept by the TTL).
 */
export type TicketState =
  | { state: 'valid'; ticket: TicketRecord }
  | { state: 'used' | 'expired'; ticket: TicketRecord }
  | { state: 'unknown' };

/**
 * One-time tickets (email verification now, password change with issue 13). Item:
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
  redeem(value: string, kind: TicketKind): Promise<TicketState>;
}

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
        created_at: at.toISOString(),
        expires_at: expires.toISOString(),
      };
      await putNewItem(db, tableName, { ...keys.ticket(ticketHash(value)), ...entity('Ticket'), ...ticket, ttl: ttlOf(expires) });
      return { value, ticket };
    },

    async find(value) {
      if (!TICKET_VALUE.test(value)) return { state: 'unknown' };
      return stateOf(await read(value), now());
    },

    async redeem(value, kind) {
      if (!TICKET_VALUE.test(value)) return { state: 'unknown' };
      const at = now();
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.ticket(ticketHash(value)),
            UpdateExpression: 'SET used_at = :now',
            // ISO UTC timestamps of one format compare as strings in time order.
            ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(used_at) AND kind = :kind AND expires_at > :now',
            ExpressionAttributeValues: { ':now': at.toISOString(), ':kind': kind },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return { state: 'valid', ticket: toRecord<TicketRecord>(Attributes!) };
      } catch (err) {
        if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') return translateError(err);
      }
      const found = stateOf(await read(value), at);
      // A live, unused ticket of another kind is not this page's to redeem: as good as unknown here.
      return found.state === 'valid' ? { state: 'unknown' } : found;
    },
  };
}
