import { createHash, randomBytes } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { UserRecord } from '../../records/user-record.ts';
import { entity, toRecord } from '../../store/entity.ts';
import { getItem } from '../../store/read-items.ts';
import { keys } from '../../store/table-keys.ts';
import { translateError } from '../../store/translate-error.ts';
import { ttlOf } from '../../store/ttl.ts';
import type { BrowserStores, InteractionRecord, SessionView } from './browser-stores.ts';

/**
 * INTERIM, until the `pages` branch lands its repositories (flows-plan.md: sessions, interactions,
 * user grants are `pages`' items): the pinned keys and shapes, read and written the way the plan
 * pins them, so `/authorize` works end to end meanwhile. Replaced by the pages' modules on merge.
 */
const sessionKey = (cookie: string) => ({ PK: `SESSION#${createHash('sha256').update(cookie).digest('base64url')}`, SK: 'SESSION' });
const interactionKey = (id: string) => ({ PK: `INTERACTION#${id}`, SK: 'INTERACTION' });
const userGrantKey = (userId: string, clientId: string, resourceId: string | undefined) => ({
  PK: `USER#${userId}`,
  SK: `GRANT#${clientId}#${resourceId ?? 'userinfo'}`,
});

const INTERACTION_LIFETIME_MS = 10 * 60 * 1000;

export function interimBrowserStores(db: DynamoDBDocumentClient, tableName: string, now: () => Date): BrowserStores {
  const live = (item: Record<string, unknown> | undefined, at: Date) =>
    item && (typeof item.expires_at !== 'string' || Date.parse(item.expires_at) > at.getTime()) ? item : undefined;
  return {
    async findSession(cookie) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(cookie)) return undefined;
      const at = now();
      const item = live(await getItem(db, tableName, sessionKey(cookie), at), at);
      if (!item || item.ended_at) return undefined;
      const session = toRecord<SessionView>(item);
      const user = await getItem(db, tableName, keys.user(session.user_id), at);
      if (!user || (user as unknown as UserRecord).blocked) return undefined;
      return session;
    },
    async createInteraction({ returnTo, ...input }) {
      const id = randomBytes(32).toString('base64url');
      const expires = new Date(now().getTime() + INTERACTION_LIFETIME_MS);
      const record: InteractionRecord = { ...input, id, return_to: returnTo(id), expires_at: expires.toISOString() };
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...interactionKey(id),
              type: 'Interaction',
              schema_version: entity('Ticket').schema_version,
              ...record,
              ttl: ttlOf(expires),
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
      } catch (err) {
        return translateError(err);
      }
      return record;
    },
    async readInteraction(id) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
      const at = now();
      const item = live(await getItem(db, tableName, interactionKey(id), at), at);
      return item ? toRecord<InteractionRecord>(item) : undefined;
    },
    async consumeInteraction(id) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
      try {
        const { Attributes } = await db.send(
          new DeleteCommand({
            TableName: tableName,
            Key: interactionKey(id),
            ConditionExpression: 'attribute_exists(PK) AND expires_at > :now',
            ExpressionAttributeValues: { ':now': now().toISOString() },
            ReturnValues: 'ALL_OLD',
          }),
        );
        return Attributes ? toRecord<InteractionRecord>(Attributes) : undefined;
      } catch (err) {
        if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return undefined;
        return translateError(err);
      }
    },
    async findUserGrant(userId, clientId, resourceId) {
      const item = await getItem(db, tableName, userGrantKey(userId, clientId, resourceId), now());
      return item ? { scopes: (item.scopes as string[]) ?? [] } : undefined;
    },
    consentNeeded({ client, resource, grant, scopes, prompt }) {
      if (prompt.includes('consent')) return true;
      if (client.is_first_party && (resource === undefined || resource.skip_consent_for_first_party)) return false;
      const held = new Set(grant?.scopes ?? []);
      return !scopes.every((s) => held.has(s));
    },
  };
}
