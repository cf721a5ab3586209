import { randomBytes } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { entity, toRecord } from '../core/entity.ts';
import { putNewItem } from '../core/put-new-item.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { ttlOf } from '../core/ttl.ts';
import type { AuthMethod } from './sessions-repository.ts';

/** An interaction lives 10 minutes (docs/browser-flows.md): long enough to type a password and an OTP. */
export const INTERACTION_LIFETIME_SECONDS = 600;

/**
 * What the pages do for a creator (`/authorize`, `/device`) between its request and its resume
 * route, at `INTERACTION#{id}` / `INTERACTION` (`ttl`): who logged in (`user_id`, `session_id`,
 * `auth_time`, `amr`, set by `/login`) and what they decided (`decision`, `granted_scopes`, set by
 * `/consent`). `payload` is the creator's own data, opaque to the pages.
 */
export interface InteractionRecord {
  id: string;
  /** `account`: the account page's sign-in (docs/passkeys.md "The account page"): no client, `client_id` is ''. */
  kind: 'authorize' | 'device' | 'account';
  tenant_id: string;
  client_id: string;
  /** The requested scopes (names). */
  scopes: string[];
  /** The Resource the access token is for; absent: `/userinfo` only. */
  resource_id?: string;
  /** OIDC `prompt` values (`login`, `consent`; `none` never makes an interaction). */
  prompt: string[];
  /** OIDC `max_age` in seconds. */
  max_age?: number;
  /** OIDC `acr_values` we support, in the requested order: a session stands in only when its `amr` meets one. */
  acr_values?: string[];
  login_hint?: string;
  /** Where `/consent` sends the browser when done: a path of this service; `{id}` in a new one becomes the interaction's id. */
  return_to: string;
  /**
   * Origins the flow may end at, after `return_to` (the client's redirect URI for `/authorize`).
   * The login and consent pages list them in their CSP `form-action`: CSP3 applies it to every
   * redirect that follows a form's POST, so without them a browser stops at the last hop.
   */
  form_actions?: string[];
  payload: Record<string, unknown>;
  user_id?: string;
  session_id?: string;
  auth_time?: number;
  amr?: AuthMethod[];
  decision?: 'allow' | 'deny';
  granted_scopes?: string[];
  created_at: string;
  expires_at: string;
}

export type NewInteraction = Omit<
  InteractionRecord,
  'id' | 'created_at' | 'expires_at' | 'user_id' | 'session_id' | 'auth_time' | 'amr' | 'decision' | 'granted_scopes'
>;

export interface InteractionLogin {
  user_id: string;
  session_id: string;
  auth_time: number;
  amr: AuthMethod[];
}

export interface InteractionsRepository {
  /**
   * Stores a new interaction (id: 32 random bytes base64url, it travels in URLs); returns it.
   * `{id}` in `return_to` becomes the new id (the creator's resume route names its interaction).
   */
  createInteraction(input: NewInteraction): Promise<InteractionRecord>;
  /** The live interaction with this id; undefined when malformed, unknown, expired or consumed. */
  readInteraction(id: string): Promise<InteractionRecord | undefined>;
  /**
   * Records who logged in (a new login clears an earlier decision: it was another login's). One
   * conditional write: undefined when the interaction is gone or expired.
   */
  recordLogin(id: string, login: InteractionLogin): Promise<InteractionRecord | undefined>;
  /**
   * Records the decision of the session that logged in: the write is conditioned on
   * `session_id`, so another browser's session cannot decide. Undefined when the interaction is
   * gone, expired or belongs to another session.
   */
  recordDecision(
    id: string,
    sessionId: string,
    decision: { decision: 'allow'; granted_scopes: string[] } | { decision: 'deny' },
  ): Promise<InteractionRecord | undefined>;
  /**
   * Deletes the interaction with ONE conditional DeleteItem and returns it, to the first caller
   * only: of any number of concurrent calls exactly one gets the item (the resume route's "used
   * once"). Undefined for the others, and for an unknown or expired interaction.
   */
  consumeInteraction(id: string): Promise<InteractionRecord | undefined>;
}

const INTERACTION_ID = /^[A-Za-z0-9_-]{43}$/;
export const isInteractionId = (id: unknown): id is string => typeof id === 'string' && INTERACTION_ID.test(id);

const failedCondition = (err: unknown) => (err as { name?: string }).name === 'ConditionalCheckFailedException';

export function interactionsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): InteractionsRepository {
  const update = async (
    id: string,
    expression: string,
    condition: string,
    values: Record<string, unknown>,
  ): Promise<InteractionRecord | undefined> => {
    if (!isInteractionId(id)) return undefined;
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.interaction(id),
          UpdateExpression: expression,
          // ISO UTC timestamps of one format compare as strings in time order.
          ConditionExpression: `attribute_exists(PK) AND expires_at > :now${condition}`,
          ExpressionAttributeValues: { ':now': now().toISOString(), ...values },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toRecord<InteractionRecord>(Attributes!);
    } catch (err) {
      if (failedCondition(err)) return undefined;
      return translateError(err);
    }
  };

  return {
    async createInteraction(input) {
      const at = now();
      const expires = new Date(at.getTime() + INTERACTION_LIFETIME_SECONDS * 1000);
      const id = randomBytes(32).toString('base64url');
      const record: InteractionRecord = {
        ...input,
        id,
        // The creator's resume route names the interaction, whose id is made here: `{id}` in
        // `return_to` stands for it (`/device/resume?interaction={id}`).
        return_to: input.return_to.replace('{id}', id),
        created_at: at.toISOString(),
        expires_at: expires.toISOString(),
      };
      await putNewItem(db, tableName, { ...keys.interaction(record.id), ...entity('Interaction'), ...record, ttl: ttlOf(expires) });
      return record;
    },

    async readInteraction(id) {
      if (!isInteractionId(id)) return undefined;
      const at = now();
      const item = await getItem(db, tableName, keys.interaction(id), at);
      if (item?.type !== 'Interaction') return undefined;
      const record = toRecord<InteractionRecord>(item);
      return Date.parse(record.expires_at) > at.getTime() ? record : undefined;
    },

    recordLogin(id, login) {
      return update(id, 'SET user_id = :user, session_id = :session, auth_time = :auth, amr = :amr REMOVE decision, granted_scopes', '', {
        ':user': login.user_id,
        ':session': login.session_id,
        ':auth': login.auth_time,
        ':amr': login.amr,
      });
    },

    recordDecision(id, sessionId, decision) {
      return decision.decision === 'allow'
        ? update(id, 'SET decision = :decision, granted_scopes = :granted', ' AND session_id = :session', {
            ':decision': 'allow',
            ':granted': decision.granted_scopes,
            ':session': sessionId,
          })
        : update(id, 'SET decision = :decision REMOVE granted_scopes', ' AND session_id = :session', {
            ':decision': 'deny',
            ':session': sessionId,
          });
    },

    async consumeInteraction(id) {
      if (!isInteractionId(id)) return undefined;
      try {
        const { Attributes } = await db.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.interaction(id),
            ConditionExpression: 'attribute_exists(PK) AND expires_at > :now',
            ExpressionAttributeValues: { ':now': now().toISOString() },
            ReturnValues: 'ALL_OLD',
          }),
        );
        return Attributes ? toRecord<InteractionRecord>(Attributes) : undefined;
      } catch (err) {
        if (failedCondition(err)) return undefined;
        return translateError(err);
      }
    },
  };
}
