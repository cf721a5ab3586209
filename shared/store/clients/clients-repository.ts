import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { generateClientSecret, hashClientSecret } from '../../crypto/client-secret.ts';
import { conflict, notFound } from '../../errors.ts';
import type { CollectionSource } from '../../lists/collection-source.ts';
import type { SecretBox } from '../../ports/secret-box.ts';
import type { ClientPatch, ClientRecord, NewClient } from '../../records/client-record.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { entity, toRecord } from '../core/entity.ts';
import { equals, notExists } from '../core/expression.ts';
import { putMarker } from '../core/markers.ts';
import { changedFields, type DeepPartial, mergePatch } from '../core/merge-patch.ts';
import { type CollectionPage, type CollectionPageRequest, countWrite, tenantCollectionMethods } from '../core/reads/collections.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { updateWithRetry, versionedUpdate } from '../core/versioned-update.ts';
import { putItem, type Write } from '../core/writes.ts';
import { type ClientTokenReads, clientTokenReads } from '../token-path/client-token-reads.ts';
import { newClientRecord } from './client-defaults.ts';
import { deleteClient } from './client-delete.ts';

export interface UpdateOptions {
  /** If-Match: fail with 409 unless the record is still at this version (no silent re-merge). */
  expectedVersion?: number;
  /**
   * The caller's rules on the merged record, re-run on every attempt: a lost race re-merges the
   * patch into a newer record, and the rules must hold for what is actually written.
   */
  validate?: (current: ClientRecord, next: ClientRecord) => void | Promise<void>;
  /** The write also requires the client's links as read (`links_version`), for rules that depend on them. */
  linksUnchanged?: boolean;
}

/**
 * Clients (spec §2.2; fields documented on ClientRecord). Items: `CLIENT#{id}` / `CLIENT` in
 * GSI1 `TENANT#{t}#CLIENTS` / id; the tenant's `COUNT#CLIENTS` counter changes in the same
 * transaction as every create and delete. Secrets arrive in plaintext and are stored twice: a
 * SHA-256 hash to verify and a SecretBox-sealed copy to show to `read:client_keys` callers.
 */
export interface ClientsRepository extends ClientTokenReads {
  /** Creates a client; a confidential client without `client_secret` gets a generated one (open `secret_sealed` to show it). */
  create(input: NewClient, actor: string): Promise<ClientRecord>;
  /** Consistent GetItem by id alone (the token endpoint knows only the client_id). */
  get(id: string): Promise<ClientRecord | undefined>;
  /** PATCH: merges, writes with a version condition, re-reads and re-merges on a lost race. 404 if missing. */
  update(id: string, patch: ClientPatch, actor: string, options?: UpdateOptions): Promise<ClientRecord>;
  /** Replaces the secret (hash + sealed copy) and optionally its expiry. 404 if missing. */
  changeSecret(id: string, secret: string, actor: string, options?: { expiresAt?: string | null }): Promise<ClientRecord>;
  /** Deletes the client with its links and permissions, fixing the resources' counts. 404 / 403 (Default Client). */
  delete(id: string): Promise<void>;
  /** One page of the tenant's clients in id (= creation) order, for shared/lists. */
  /** The tenant's clients as a list source (shared/lists): pages with their cursor keys, the exact count. */
  collection(tenantId: string): CollectionSource<ClientRecord>;
  listPage(tenantId: string, request: CollectionPageRequest): Promise<CollectionPage<ClientRecord>>;
  /** Every client of the tenant, for `q` and `sort` (shared/lists bounds the size). */
  listAll(tenantId: string): Promise<ClientRecord[]>;
  /** `total_count` of the tenant's clients: one GetItem. */
  count(tenantId: string): Promise<number>;
  /** The Default Client's id (consistent, via its marker), if bootstrap made one. */
  findDefaultClientId(): Promise<string | undefined>;
}

const EDITABLE: readonly (keyof ClientRecord)[] = [
  'client_name',
  'client_description',
  'client_metadata',
  'app_metadata',
  'is_public',
  'is_first_party',
  'is_global',
  'tenant_id',
  'client_secret_expires_at',
];

export function clientsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date, secretBox: SecretBox): ClientsRepository {
  const get = async (id: string) => {
    const item = await getItem(db, tableName, keys.client(id), now());
    return item ? toRecord<ClientRecord>(item) : undefined;
  };
  const mustGet = async (id: string) => {
    const c = await get(id);
    if (!c) throw notFound('Client not found.');
    return c;
  };
  const sealSecret = async (secret: string) => ({ hash: hashClientSecret(secret), sealed: await secretBox.seal(secret) });

  return {
    get,

    async create(input, actor) {
      const id = input.id ?? uuidv7();
      const isPublic = input.is_public ?? false;
      const secret = isPublic ? undefined : await sealSecret(input.client_secret ?? generateClientSecret());
      const record = newClientRecord(id, input, actor, now().toISOString(), secret);
      const writes: Write[] = [
        putItem(clientItem(record), { condition: notExists, onFail: () => conflict(`A client with id ${id} already exists.`) }),
        countWrite(record.tenant_id, 'CLIENTS', 1),
      ];
      if (record.is_default) {
        writes.push(putMarker(keys.marker('DEFAULT_CLIENT'), id, { onTaken: () => conflict('A Default Client already exists.') }));
      }
      await commitPlan(db, tableName, [writes]);
      return record;
    },

    update(id, patch, actor, options = {}) {
      return updateWithRetry({
        load: () => get(id),
        notFound: () => notFound('Client not found.'),
        ...(options.expectedVersion !== undefined ? { expectedVersion: options.expectedVersion } : {}),
        write: async (current) => {
          const next = mergePatch<ClientRecord>(current, patch as DeepPartial<ClientRecord>);
          await options.validate?.(current, next);
          const changed: Record<string, unknown> = {
            ...changedFields(current, next, EDITABLE),
            updated_by: actor,
            updated_at: now().toISOString(),
          };
          const units: Write[][] = [];
          const moves = next.tenant_id !== current.tenant_id;
          if (moves) {
            // Its links would point into the old tenant: only a client without any may move, and
            // the write requires that no link appeared since this read (links bump links_version).
            if (current.aggregations.resources > 0) {
              throw conflict('body.tenant_id: the client has resources authorized in its tenant; revoke them before moving it.');
            }
            // Moving tenants moves the client between two collections and their counters.
            changed.GSI1PK = keys.collection(next.tenant_id, 'CLIENTS');
            units.push([countWrite(current.tenant_id, 'CLIENTS', -1), countWrite(next.tenant_id, 'CLIENTS', 1)]);
          }
          const guard = moves || options.linksUnchanged ? { condition: equals('links_version', current.links_version) } : {};
          units.unshift([versionedUpdate(keys.client(id), changed, current.version, guard)]);
          const { attributes } = await commitPlan(db, tableName, [units.flat()]);
          return attributes ? toRecord<ClientRecord>(attributes) : mustGet(id);
        },
      });
    },

    async changeSecret(id, secret, actor, options = {}) {
      const sealed = await sealSecret(secret);
      return updateWithRetry({
        load: () => get(id),
        notFound: () => notFound('Client not found.'),
        write: async (current) => {
          const fields: Record<string, unknown> = {
            secret_hash: sealed.hash,
            secret_sealed: sealed.sealed,
            updated_by: actor,
            updated_at: now().toISOString(),
          };
          if (options.expiresAt !== undefined) fields.client_secret_expires_at = options.expiresAt;
          const { attributes } = await commitPlan(db, tableName, [[versionedUpdate(keys.client(id), fields, current.version)]]);
          return attributes ? toRecord<ClientRecord>(attributes) : mustGet(id);
        },
      });
    },

    delete: (id) => deleteClient(db, tableName, id),

    ...tenantCollectionMethods<ClientRecord>(db, tableName, 'CLIENTS', now),

    ...clientTokenReads(db, tableName, now),

    async findDefaultClientId() {
      const marker = await getItem(db, tableName, keys.marker('DEFAULT_CLIENT'), now());
      return typeof marker?.target_id === 'string' ? marker.target_id : undefined;
    },
  };
}

export function clientItem(record: ClientRecord) {
  return {
    ...keys.client(record.id),
    GSI1PK: keys.collection(record.tenant_id, 'CLIENTS'),
    GSI1SK: record.id,
    ...entity('Client'),
    ...record,
  };
}
