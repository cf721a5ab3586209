import { DeleteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { entity, toRecord } from '../core/entity.ts';
import { putNewItem } from '../core/put-new-item.ts';
import { secretHash } from '../core/secret-hash.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { ttlOf } from '../core/ttl.ts';

/** As long as the interaction it belongs to (docs/browser-flows.md): time to sign in at the provider. */
export const FEDERATED_LOGIN_LIFETIME_SECONDS = 600;

/**
 * One sign-in sent to an external provider (docs/federation.md "Federated login"), at
 * `FEDERATION#{sha256(state)}` / `FEDERATION` (`ttl`): what the callback needs to finish it. The
 * `state` and the browser's binding cookie are stored only as hashes; the PKCE verifier and the
 * nonce are useless without the provider's code, which only the browser sees.
 */
export interface FederatedLoginRecord {
  interaction_id: string;
  tenant_id: string;
  provider_id: string;
  nonce: string;
  code_verifier: string;
  created_at: string;
  expires_at: string;
}

export type NewFederatedLogin = Omit<FederatedLoginRecord, 'created_at' | 'expires_at'>;

export interface FederatedLoginsRepository {
  /** Stores the sign-in under the hash of `state`, bound to the hash of the browser's `binding` cookie. */
  create(state: string, binding: string, login: NewFederatedLogin): Promise<FederatedLoginRecord>;
  /**
   * Takes the sign-in of `state` if `binding` is the cookie it was bound to: ONE conditional
   * DeleteItem (live, same binding), so it is used once, and a callback URL replayed in another
   * browser neither uses nor spends it. Undefined when unknown, used, expired or another browser's.
   */
  take(state: string, binding: string): Promise<FederatedLoginRecord | undefined>;
}

/** The values we make are 32 random bytes, base64url; anything else was never issued. */
const VALUE = /^[A-Za-z0-9_-]{43}$/;

export function federatedLoginsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): FederatedLoginsRepository {
  return {
    async create(state, binding, login) {
      const at = now();
      const expires = new Date(at.getTime() + FEDERATED_LOGIN_LIFETIME_SECONDS * 1000);
      const record: FederatedLoginRecord = { ...login, created_at: at.toISOString(), expires_at: expires.toISOString() };
      await putNewItem(db, tableName, {
        ...keys.federatedLogin(secretHash(state)),
        ...entity('FederatedLogin'),
        ...record,
        binding_hash: secretHash(binding),
        ttl: ttlOf(expires),
      });
      return record;
    },

    async take(state, binding) {
      if (!VALUE.test(state) || !VALUE.test(binding)) return undefined;
      try {
        const { Attributes } = await db.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.federatedLogin(secretHash(state)),
            // ISO UTC timestamps of one format compare as strings in time order.
            ConditionExpression: 'attribute_exists(PK) AND expires_at > :now AND binding_hash = :binding',
            ExpressionAttributeValues: { ':now': now().toISOString(), ':binding': secretHash(binding) },
            ReturnValues: 'ALL_OLD',
          }),
        );
        if (!Attributes) return undefined;
        const { binding_hash: _, ...rest } = Attributes;
        return toRecord<FederatedLoginRecord>(rest);
      } catch (err) {
        if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return undefined;
        return translateError(err);
      }
    },
  };
}
