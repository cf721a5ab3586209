import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FoldedEvent } from '../../ports/event-log.ts';
import { entity, toRecord } from '../core/entity.ts';
import { queryAll, queryPrefix } from '../core/reads/query-all.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { sendWithEvents } from '../events/send-with-events.ts';
import type { RefreshTokensRepository } from './refresh-tokens-repository.ts';

/**
 * A User Grant (docs/contract.md §6 `/users/{id}/grants`, §7.4): the scopes a user consented to give a
 * client for a Resource (`resource_id` null: the OIDC scopes of a `/userinfo` token), at
 * `USER#{u}` / `GRANT#{client_id}#{resource_id or 'userinfo'}` (GSI2 `CLIENT#{c}#GRANTS` / user id).
 */
export interface ConsentRecord {
  id: string;
  user_id: string;
  tenant_id: string;
  client_id: string;
  resource_id: string | null;
  scopes: string[];
  created_at: string;
  updated_at: string;
}

export interface GrantToSave {
  userId: string;
  tenantId: string;
  clientId: string;
  resourceId: string | null;
  scopes: readonly string[];
}

export interface ConsentsRepository {
  findConsent(userId: string, clientId: string, resourceId: string | null | undefined): Promise<ConsentRecord | undefined>;
  /**
   * Creates the grant or adds scopes to it, in ONE UpdateItem whose `ADD` on a string set is the
   * union: two consents saved at once both keep their scopes. The id and `created_at` are the first save's.
   * With `events` (the consent page's `consent.granted`) they ride on that write as one transaction,
   * which returns no attributes: nothing is returned then.
   */
  saveConsent(grant: GrantToSave): Promise<ConsentRecord>;
  saveConsent(grant: GrantToSave, events: readonly FoldedEvent[]): Promise<undefined>;
  /** The user's grants, in key order (client, then resource). */
  listConsents(userId: string): Promise<ConsentRecord[]>;
  /**
   * Withdraws the grant with this id (undefined when the user has none such) and revokes the
   * refresh-token families of that client for the user (docs/contract.md §6): every refresh token of them
   * is refused and their access tokens turn inactive (the families are the tokens' `sid`).
   * `events` of the grant read (the account page's `consent.withdrawn`) ride on the grant's delete,
   * as does a management route's pending event: they land if and only if the grant is withdrawn.
   */
  deleteConsent(
    userId: string,
    grantId: string,
    events?: (grant: ConsentRecord) => readonly FoldedEvent[],
  ): Promise<ConsentRecord | undefined>;
}

/** A stored item as its record: the string set back to a sorted array. */
function grantOf(item: Record<string, unknown>): ConsentRecord {
  const record = toRecord<ConsentRecord & { scopes: Set<string> | string[] }>(item);
  return { ...record, scopes: [...(record.scopes ?? [])].sort() };
}

export function consentsRepository(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  refreshTokens: Pick<RefreshTokensRepository, 'revokeFamily'>,
): ConsentsRepository {
  const list = async (userId: string) =>
    (await queryPrefix(db, tableName, keys.userPartition(userId), keys.consentPrefix)).filter((i) => i.type === 'UserGrant').map(grantOf);

  /** The user's refresh-token families issued to one client (GSI1 `USER#{u}#REFRESH_TOKENS`, the `FAMILY#` entries). */
  const familiesOf = async (userId: string, clientId: string): Promise<string[]> => {
    const items = await queryAll(db, {
      TableName: tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :family)',
      FilterExpression: 'client_id = :client',
      ExpressionAttributeNames: { '#pk': 'GSI1PK', '#sk': 'GSI1SK' },
      ExpressionAttributeValues: { ':pk': keys.userRefreshTokens(userId), ':family': 'FAMILY#', ':client': clientId },
    });
    return items.map((i) => (i.GSI1SK as string).slice('FAMILY#'.length));
  };

  async function saveConsent(grant: GrantToSave): Promise<ConsentRecord>;
  async function saveConsent(grant: GrantToSave, events: readonly FoldedEvent[]): Promise<undefined>;
  async function saveConsent(
    { userId, tenantId, clientId, resourceId, scopes }: GrantToSave,
    events?: readonly FoldedEvent[],
  ): Promise<ConsentRecord | undefined> {
    const at = now().toISOString();
    const adding = scopes.length > 0;
    try {
      const attributes = await sendWithEvents(
        db,
        {
          Update: {
            TableName: tableName,
            Key: keys.consent(userId, clientId, resourceId),
            UpdateExpression: `SET #type = :type, schema_version = :sv, id = if_not_exists(id, :id), user_id = :user, tenant_id = :tenant, client_id = :client, resource_id = :resource, GSI2PK = :gsi2pk, GSI2SK = :user, created_at = if_not_exists(created_at, :at), updated_at = :at${adding ? ' ADD scopes :scopes' : ''}`,
            ExpressionAttributeNames: { '#type': 'type' },
            ExpressionAttributeValues: {
              ':type': 'UserGrant',
              ':sv': entity('UserGrant').schema_version,
              ':id': uuidv7(),
              ':user': userId,
              ':tenant': tenantId,
              ':client': clientId,
              ':resource': resourceId,
              ':gsi2pk': keys.clientGrants(clientId),
              ':at': at,
              ...(adding ? { ':scopes': new Set(scopes) } : {}),
            },
            ReturnValues: 'ALL_NEW',
          },
        },
        events,
      );
      return attributes ? grantOf(attributes) : undefined;
    } catch (err) {
      return translateError(err);
    }
  }

  return {
    async findConsent(userId, clientId, resourceId) {
      const item = await getItem(db, tableName, keys.consent(userId, clientId, resourceId ?? null), now());
      return item?.type === 'UserGrant' ? grantOf(item) : undefined;
    },

    saveConsent,

    listConsents: list,

    async deleteConsent(userId, grantId, events) {
      const grant = (await list(userId)).find((g) => g.id === grantId);
      if (!grant) return undefined;
      // Tokens first: if the delete below never happens (a crash), the grant is still listed and
      // withdrawing it again finishes; the other order could leave live tokens of a withdrawn grant.
      for (const family of await familiesOf(userId, grant.client_id)) await refreshTokens.revokeFamily(family);
      try {
        await sendWithEvents(
          db,
          {
            Delete: {
              TableName: tableName,
              Key: keys.consent(userId, grant.client_id, grant.resource_id),
              // Only the grant that was read: a withdrawn and given-again grant has a new id.
              ConditionExpression: 'id = :id',
              ExpressionAttributeValues: { ':id': grantId },
            },
          },
          events?.(grant),
        );
      } catch (err) {
        if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return undefined;
        return translateError(err);
      }
      return grant;
    },
  };
}
