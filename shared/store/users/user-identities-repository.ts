import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AppError, conflict, notFound } from '../../errors.ts';
import { newAuditFields } from '../../records/common.ts';
import type { UserIdentityRecord } from '../../records/user-identity-record.ts';
import type { NewUser, UserLoginKind, UserRecord } from '../../records/user-record.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { entity, toRecord } from '../core/entity.ts';
import { and, exists, notExists } from '../core/expression.ts';
import { putMarker } from '../core/markers.ts';
import { queryPrefix } from '../core/reads/query-all.ts';
import { getItem } from '../core/reads/read-items.ts';
import { withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { checkItem, putItem, updateItem, type Write } from '../core/writes.ts';
import { newUserRecord } from './user-defaults.ts';
import { type IdentityKey, identityMarker, unlinkWrites } from './user-identity-writes.ts';
import { userCreateWrites } from './users-repository.ts';

export type { IdentityKey } from './user-identity-writes.ts';

/** At most this many identities per user (docs/management-users.md "User identities"): bounds `expand=all` and the delete. */
export const MAX_IDENTITIES_PER_USER = 20;

/** The user and identity a federated first sign-in stored. */
export interface CreatedFederatedUser {
  user: UserRecord;
  identity: UserIdentityRecord;
}

/**
 * User Identities (docs/contract.md §6, §7.7; docs/management-users.md "User identities"): the
 * item `USER#{u}` / `IDENTITY#{id}` and its marker `UNIQUE#IDENTITY#{provider_id}#{provider_user_id}`
 * (`target_id` the identity's id; `user_id`, `tenant_id` carried so a sign-in finds the user with
 * one GetItem), always written and deleted together in one transaction. The user item's
 * `identity_count` moves in the same transaction, which both caps the count and requires the user
 * to exist (a link racing the user's delete either lands first and is swept, or fails).
 */
export interface UserIdentitiesRepository {
  /** The user linked to (provider, provider user): one consistent GetItem of the marker. */
  userIdOf(providerId: string, providerUserId: string): Promise<string | undefined>;
  /** The user's identities, in id (= link) order: one consistent Query of its partition. */
  list(userId: string): Promise<UserIdentityRecord[]>;
  /**
   * Links an identity to the user. 409 naming `body.provider_user_id` when the pair is linked to
   * anyone (this user included) or the user is at MAX_IDENTITIES_PER_USER; 404 if the user is gone.
   * The provider's tenant is the caller's check.
   */
  link(user: Pick<UserRecord, 'id' | 'tenant_id'>, identity: IdentityKey, actor: string): Promise<UserIdentityRecord>;
  /** Removes one identity and its marker in one transaction; false when the user has no such identity. */
  unlink(userId: string, identityId: string): Promise<boolean>;
  /**
   * A federated first sign-in: the user (no password) AND its identity with the marker in ONE
   * transaction, on the users create plan (its markers, `COUNT#USERS`, the deleted-tenant check).
   * `taken: 'identity'` when the pair is linked already (the loser of a race re-reads the winner);
   * `taken: 'email'` when another user of the tenant has the email (docs/contract.md §7.7: never
   * merged silently). Nothing is written then.
   */
  createUserWithIdentity(
    input: NewUser,
    identity: IdentityKey,
    actor: string,
  ): Promise<CreatedFederatedUser | { taken: 'identity' | 'email' }>;
  /**
   * Drops a marker whose user no longer exists (a user delete interrupted before its identity
   * sweep), with its identity item, only while the marker still names that identity.
   */
  dropStaleMarker(identity: IdentityKey): Promise<void>;
}

/** The pair is linked already (the 409 of a link). */
const pairTaken = () => conflict('body.provider_user_id: this provider user is already linked to a user.');

/** Which marker refused a federated create: told apart by their own errors, turned into a result. */
class Taken extends AppError {
  constructor(readonly what: 'identity' | 'email') {
    super(409, 'conflict', `The ${what} is taken.`);
  }
}

/** A new identity of `user` (a fresh id, audit fields of `actor` at `at`). */
function newIdentityRecord(
  user: Pick<UserRecord, 'id' | 'tenant_id'>,
  identity: IdentityKey,
  actor: string,
  at: string,
): UserIdentityRecord {
  return {
    id: uuidv7(),
    tenant_id: user.tenant_id,
    user_id: user.id,
    provider_id: identity.providerId,
    provider_user_id: identity.providerUserId,
    ...newAuditFields(actor, at),
  };
}

function identityItem(record: UserIdentityRecord) {
  return { ...keys.userIdentity(record.user_id, record.id), ...entity('UserIdentity'), ...record };
}

/** The identity item and its marker: the two writes every link lands in one transaction. */
function identityWrites(record: UserIdentityRecord, onTaken: () => AppError = pairTaken): Write[] {
  const key = { providerId: record.provider_id, providerUserId: record.provider_user_id };
  return [
    putMarker(identityMarker(key), record.id, {
      attributes: { user_id: record.user_id, tenant_id: record.tenant_id },
      onTaken,
    }),
    putItem(identityItem(record), { condition: notExists }),
  ];
}

/** Marks the link's user-item write as failed: whether the user is gone or full is read after. */
class UserRefused extends AppError {
  constructor() {
    super(409, 'conflict', 'The user refused the identity.');
  }
}

export function userIdentitiesRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): UserIdentitiesRepository {
  const readMarker = (k: IdentityKey) => getItem(db, tableName, identityMarker(k), now());

  return {
    async userIdOf(providerId, providerUserId) {
      const marker = await readMarker({ providerId, providerUserId });
      return typeof marker?.user_id === 'string' ? marker.user_id : undefined;
    },

    async list(userId) {
      const items = await queryPrefix(db, tableName, keys.userPartition(userId), keys.identityPrefix);
      return items.map((i) => toRecord<UserIdentityRecord>(i));
    },

    async link(user, identity, actor) {
      const record = newIdentityRecord(user, identity, actor, now().toISOString());
      const count = updateItem(keys.user(user.id), {
        add: [['identity_count', 1]],
        condition: and(
          exists,
          (x) => `attribute_not_exists(${x.name('identity_count')}) OR ${x.name('identity_count')} < ${x.value(MAX_IDENTITIES_PER_USER)}`,
        ),
        onFail: () => new UserRefused(),
      });
      try {
        // The marker first: when both fail, the 409 names the pair (commit-plan.ts reports the first failed write).
        await withRetries(() => commitPlan(db, tableName, [[...identityWrites(record), count]]));
      } catch (err) {
        if (!(err instanceof UserRefused)) throw err;
        const stored = await getItem(db, tableName, keys.user(user.id), now());
        if (!stored) throw notFound('User not found.');
        throw conflict(`body.provider_user_id: a user has at most ${MAX_IDENTITIES_PER_USER} identities.`);
      }
      return record;
    },

    async unlink(userId, identityId) {
      return withRetries(async () => {
        const item = await getItem(db, tableName, keys.userIdentity(userId, identityId), now());
        if (!item) return false;
        const record = toRecord<UserIdentityRecord>(item);
        const lower = updateItem(keys.user(userId), { add: [['identity_count', -1]], condition: exists });
        // The user item is gone when its delete sweeps (user-delete.ts): then only the pair goes.
        const user = await getItem(db, tableName, keys.user(userId), now());
        await commitPlan(db, tableName, [[...unlinkWrites(record), ...(user ? [lower] : [])]]);
        return true;
      });
    },

    async createUserWithIdentity(input, identity, actor) {
      const at = now().toISOString();
      const user: UserRecord = { ...newUserRecord(uuidv7(), input, actor, at), identity_count: 1 };
      const record = newIdentityRecord(user, identity, actor, at);
      const onTaken = (kind: UserLoginKind) => () => (kind === 'email' ? new Taken('email') : conflict(`body.${kind}: taken.`));
      try {
        // The identity's writes first: when the pair and the email are both taken, the pair is reported (the race the caller resolves).
        await commitPlan(db, tableName, [[...identityWrites(record, () => new Taken('identity')), ...userCreateWrites(user, onTaken)]]);
      } catch (err) {
        if (err instanceof Taken) return { taken: err.what };
        throw err;
      }
      return { user, identity: record };
    },

    async dropStaleMarker(identity) {
      const marker = await readMarker(identity);
      if (typeof marker?.target_id !== 'string' || typeof marker.user_id !== 'string') return;
      await commitPlan(db, tableName, [
        [
          ...unlinkWrites({
            id: marker.target_id,
            user_id: marker.user_id,
            provider_id: identity.providerId,
            provider_user_id: identity.providerUserId,
          }),
          // Only while the user is still missing: a marker of a live user is never dropped.
          checkItem(keys.user(marker.user_id), notExists),
        ],
      ]).catch((err) => {
        // Someone else dropped or replaced it meanwhile: the caller re-reads either way.
        if (!(err instanceof AppError && err.status === 409)) throw err;
      });
    },
  };
}
