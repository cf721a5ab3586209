import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type AppError, conflict, notFound } from '../../errors.ts';
import type { CollectionSource } from '../../lists/collection-source.ts';
import type { FoldedEvent } from '../../ports/event-log.ts';
import {
  type NewUser,
  USER_LOGIN_KINDS,
  USER_PROFILE_FIELDS,
  type UserLoginKind,
  type UserPatch,
  type UserRecord,
  userMarkerValue,
} from '../../records/user-record.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { entity, toRecord } from '../core/entity.ts';
import { notExists } from '../core/expression.ts';
import { deleteMarker, putMarker } from '../core/markers.ts';
import { changedFields, type DeepPartial, mergePatch } from '../core/merge-patch.ts';
import { type CollectionPage, type CollectionPageRequest, countWrite, tenantCollectionMethods } from '../core/reads/collections.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { updateWithRetry, versionedUpdate } from '../core/versioned-update.ts';
import { putItem, type Write } from '../core/writes.ts';
import { sessionsRepository } from '../sessions/sessions-repository.ts';
import { newUserRecord } from './user-defaults.ts';
import { deleteUser, sweepRefreshTokens } from './user-delete.ts';
import { loginHintWrite, loginMarkerAttributes, userMarker } from './user-markers.ts';

export interface UserUpdateOptions {
  /** If-Match: 409 unless the record is still at this version. */
  expectedVersion?: number;
  /** The caller's rules on the merged record, re-run on every attempt (a lost race re-merges). */
  validate?: (current: UserRecord, next: UserRecord) => void | Promise<void>;
}

/**
 * Users (docs/contract.md §6; fields documented on UserRecord). Items: `USER#{id}` / `USER` in GSI1
 * `TENANT#{t}#USERS` / id; one uniqueness marker per login identifier (user-markers.ts), put,
 * moved and deleted in the same transaction as the record; the tenant's `COUNT#USERS` changes
 * with create and delete. The store never sees a plaintext password, only its hash.
 */
export interface UsersRepository {
  /** Creates the user with its markers in one transaction; 409 naming the field whose value is taken. */
  create(input: NewUser, actor: string): Promise<UserRecord>;
  /** Consistent GetItem by id. */
  get(id: string): Promise<UserRecord | undefined>;
  /** The id owning a login identifier in a tenant (one consistent GetItem of its marker). */
  findIdByLogin(tenantId: string, kind: UserLoginKind, value: string): Promise<string | undefined>;
  /** PATCH: merge, markers moved in the same transaction, version lock, re-merge on a lost race. 404 if missing. */
  update(id: string, patch: UserPatch, actor: string, options?: UserUpdateOptions): Promise<UserRecord>;
  /**
   * Deletes the user (user-delete.ts: one small transaction, then its refresh tokens in pages).
   * `accept` (e.g. "is in the caller's tenant") is checked on the record read; false → nothing
   * happens. Returns whether a user was deleted; an id with no user still sweeps leftover refresh
   * tokens, so re-running an interrupted delete finishes it.
   */
  delete(id: string, accept?: (user: UserRecord) => boolean): Promise<boolean>;
  /** Blocks or unblocks; blocking also sets `tokens_revoked_at` = `at` (every token of the user dies) and ends its sessions. 404 if missing. */
  setBlocked(id: string, blocked: boolean, at: Date, actor?: string): Promise<UserRecord>;
  /**
   * Replaces the password hash and sets `tokens_revoked_at` = `at` (docs/contract.md §6: a password change
   * revokes the user's refresh tokens). `revokeTokens: false` is for a rehash at login (same
   * password, stronger parameters), which must not log the user out everywhere. The login markers
   * then get the new hash's prefix (user-markers.ts `loginMarkerAttributes`). 404 if missing.
   */
  setPasswordHash(
    id: string,
    hash: string,
    at: Date,
    options?: { actor?: string; revokeTokens?: boolean; events?: readonly FoldedEvent[] },
  ): Promise<UserRecord>;
  /** Deletes leftover refresh tokens of a user id (idempotent); returns how many items went. */
  sweepRefreshTokens(id: string): Promise<number>;
  collection(tenantId: string): CollectionSource<UserRecord>;
  listPage(tenantId: string, request: CollectionPageRequest): Promise<CollectionPage<UserRecord>>;
  listAll(tenantId: string): Promise<UserRecord[]>;
  count(tenantId: string): Promise<number>;
}

const EDITABLE: readonly (keyof UserRecord)[] = [...USER_PROFILE_FIELDS, 'user_metadata', 'app_metadata'];

const taken = (kind: UserLoginKind) => () => conflict(`body.${kind}: a user with this ${kind} already exists.`);

/** `null` in a patch removes the field (and an address member): as a record, it is absent. */
function withoutNulls(record: UserRecord): UserRecord {
  const out: Record<string, unknown> = { ...record };
  for (const [k, v] of Object.entries(out)) if (v === null && k !== 'last_login') delete out[k];
  if (out.address) {
    const address = Object.fromEntries(Object.entries(out.address).filter(([, v]) => v !== null));
    if (Object.keys(address).length) out.address = address;
    else delete out.address;
  }
  return out as unknown as UserRecord;
}

/** The marker value of a login identifier, or undefined when the user has none. */
const markerValue = (kind: UserLoginKind, value: string | undefined) => (value === undefined ? undefined : userMarkerValue(kind, value));

export function usersRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): UsersRepository {
  const writeLoginHint = loginHintWrite(db, tableName);
  const get = async (id: string) => {
    const item = await getItem(db, tableName, keys.user(id), now());
    return item ? toRecord<UserRecord>(item) : undefined;
  };
  const mustGet = async (id: string) => {
    const u = await get(id);
    if (!u) throw notFound('User not found.');
    return u;
  };
  /** One versioned write of `fields` (and marker moves), re-read on a lost race. */
  const change = (
    id: string,
    build: (current: UserRecord) => { fields: Record<string, unknown>; writes?: Write[] },
    expectedVersion?: number,
    events?: readonly FoldedEvent[],
  ) =>
    updateWithRetry({
      load: () => get(id),
      notFound: () => notFound('User not found.'),
      ...(expectedVersion !== undefined ? { expectedVersion } : {}),
      write: async (current) => {
        const { fields, writes = [] } = build(current);
        const { attributes } = await commitPlan(db, tableName, [[versionedUpdate(keys.user(id), fields, current.version), ...writes]], {
          events,
        });
        return attributes ? toRecord<UserRecord>(attributes) : mustGet(id);
      },
    });

  return {
    get,

    async create(input, actor) {
      const record = newUserRecord(input.id ?? uuidv7(), input, actor, now().toISOString());
      await commitPlan(db, tableName, [userCreateWrites(record)]);
      return record;
    },

    async findIdByLogin(tenantId, kind, value) {
      const marker = await getItem(db, tableName, userMarker(tenantId, kind, value), now());
      return typeof marker?.target_id === 'string' ? marker.target_id : undefined;
    },

    update(id, patch, actor, options = {}) {
      return updateWithRetry({
        load: () => get(id),
        notFound: () => notFound('User not found.'),
        ...(options.expectedVersion !== undefined ? { expectedVersion: options.expectedVersion } : {}),
        write: async (current) => {
          const next = withoutNulls(mergePatch<UserRecord>(current, patch as DeepPartial<UserRecord>));
          // A new address is not verified yet, unless the same patch says it is (as Auth0 does).
          if (markerValue('email', current.email) !== markerValue('email', next.email) && patch.email_verified === undefined)
            next.email_verified = false;
          if (current.phone_number !== next.phone_number && patch.phone_verified === undefined) next.phone_verified = false;
          await options.validate?.(current, next);
          const fields: Record<string, unknown> = {
            ...changedFields(current, next, EDITABLE),
            updated_by: actor,
            updated_at: now().toISOString(),
          };
          // changedFields reports a removed field as `undefined`: versionedUpdate REMOVEs it.
          const writes: Write[] = [];
          for (const kind of USER_LOGIN_KINDS) {
            const before = current[kind];
            const after = next[kind];
            const same = (a?: string, b?: string) =>
              a === undefined
                ? b === undefined
                : b !== undefined && userMarker(current.tenant_id, kind, a).PK === userMarker(current.tenant_id, kind, b).PK;
            if (same(before, after)) continue;
            if (before !== undefined) writes.push(deleteMarker(userMarker(current.tenant_id, kind, before), id));
            if (after !== undefined) {
              const attributes = loginMarkerAttributes(current.password_hash);
              writes.push(putMarker(userMarker(current.tenant_id, kind, after), id, { attributes, onTaken: taken(kind) }));
            }
          }
          const { attributes } = await commitPlan(db, tableName, [[versionedUpdate(keys.user(id), fields, current.version), ...writes]]);
          return attributes ? toRecord<UserRecord>(attributes) : mustGet(id);
        },
      });
    },

    delete: (id, accept = () => true) => deleteUser(db, tableName, () => get(id), accept, id, now),

    async setBlocked(id, blocked, at, actor) {
      const updated = await change(id, (current) => ({
        fields: {
          blocked,
          ...(blocked ? { tokens_revoked_at: at.toISOString() } : {}),
          updated_by: actor ?? current.updated_by,
          updated_at: at.toISOString(),
        },
      }));
      // Blocking ends the user's browser sessions (docs/browser-flows.md "Sessions"); findSession
      // already refuses a blocked user's session, this makes it final (unblocking revives none).
      if (blocked) await sessionsRepository(db, tableName, now).endUserSessions(id);
      return updated;
    },

    async setPasswordHash(id, hash, at, options = {}) {
      // `events` (a self-service change's `password.changed`) land with the new hash or not at all.
      const updated = await change(
        id,
        (current) => ({
          fields: {
            password_hash: hash,
            ...(options.revokeTokens === false ? {} : { tokens_revoked_at: at.toISOString() }),
            // A new password ends a lockout (docs/contract.md §7.3): the count was of guesses at the old one
            // (as Auth0 unblocks a brute-force block on a password reset).
            login_failures: undefined,
            login_attempt_at: undefined,
            updated_by: options.actor ?? current.updated_by,
            updated_at: at.toISOString(),
          },
        }),
        undefined,
        options.events,
      );
      await writeLoginHint(updated, hash);
      return updated;
    },

    sweepRefreshTokens: (id) => sweepRefreshTokens(db, tableName, id),

    ...tenantCollectionMethods<UserRecord>(db, tableName, 'USERS', now),
  };
}

/**
 * The writes that create `record`, to land in one transaction: the item, one marker per login
 * identifier (`onTaken` the error when a value is taken: 409 naming the field by default) and the
 * tenant's `COUNT#USERS` (which refuses a deleted tenant). Shared with the federated-user create
 * (user-identities-repository.ts), which adds its identity to the same transaction.
 */
export function userCreateWrites(record: UserRecord, onTaken: (kind: UserLoginKind) => () => AppError = taken): Write[] {
  const markers = USER_LOGIN_KINDS.flatMap((kind) => {
    const value = record[kind];
    return value === undefined
      ? []
      : [
          putMarker(userMarker(record.tenant_id, kind, value), record.id, {
            attributes: loginMarkerAttributes(record.password_hash),
            onTaken: onTaken(kind),
          }),
        ];
  });
  return [
    putItem(userItem(record), { condition: notExists, onFail: () => conflict(`A user with id ${record.id} already exists.`) }),
    ...markers,
    countWrite(record.tenant_id, 'USERS', 1),
  ];
}

export function userItem(record: UserRecord) {
  return {
    ...keys.user(record.id),
    GSI1PK: keys.collection(record.tenant_id, 'USERS'),
    GSI1SK: record.id,
    ...entity('User'),
    ...record,
  };
}
