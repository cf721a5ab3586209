import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { badRequest, conflict, forbidden, notFound } from '../../errors.ts';
import type { CollectionSource } from '../../lists/collection-source.ts';
import type { SecretBox } from '../../ports/secret-box.ts';
import { newAuditFields } from '../../records/common.ts';
import type { NewResource, ResourcePatch, ResourceRecord } from '../../records/resource-record.ts';
import type { NewScope, ScopeRecord } from '../../records/scope-record.ts';
import type { UpdateOptions } from '../clients/clients-repository.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { entity, toRecord } from '../core/entity.ts';
import { equals, notExists } from '../core/expression.ts';
import { changedFields, type DeepPartial, mergePatch } from '../core/merge-patch.ts';
import { type CollectionPage, type CollectionPageRequest, countWrite, tenantCollectionMethods } from '../core/reads/collections.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { updateWithRetry, versionedUpdate } from '../core/versioned-update.ts';
import { putItem, type Write } from '../core/writes.ts';
import { type ResourceTokenReads, resourceTokenReads } from '../token-path/resource-token-reads.ts';
import { copyWrites } from '../token-path/token-copies.ts';
import { claimIdentifier, releaseIdentifier } from './identifier-claim.ts';
import { newResourceRecord, sealSigningSecret } from './resource-defaults.ts';
import { deleteResource } from './resource-delete.ts';
import { putScopeWrites } from './scope-items.ts';

/**
 * Resources (spec §2.7; fields documented on ResourceRecord). Items: `RESOURCE#{id}` / `RESOURCE`
 * in GSI1 `TENANT#{t}#RESOURCES` / id; the identifier is unique across the stage through two
 * markers (identifier-claim.ts): `UNIQUE#RESOURCE_ID_URL#{t}#{url}`, which also carries the token
 * view (resource-token-view.ts), and the stage-wide `UNIQUE#RESOURCE_ID_URL_STAGE#{url}`; both move
 * in the same transaction when it changes; the tenant's `COUNT#RESOURCES` changes with
 * create/delete.
 * `resource_metadata.signing_secret` arrives in plaintext and is stored sealed.
 */
export interface ResourcesRepository extends ResourceTokenReads {
  /**
   * Creates a resource, optionally with its first scopes in the same transaction (at most 47, so
   * record + markers fit one transaction of 100). 409 if the identifier_url is taken in any tenant.
   */
  create(input: NewResource, actor: string, scopes?: readonly NewScope[]): Promise<ResourceRecord>;
  /** Consistent GetItem. */
  get(id: string): Promise<ResourceRecord | undefined>;
  /** The id owning an identifier_url, strongly consistent (the marker): for bootstrap and checks. */
  findIdByIdentifier(tenantId: string, identifierUrl: string): Promise<string | undefined>;
  /** PATCH with merge and version condition; moves the identifier marker (409 if the new one is taken). */
  update(id: string, patch: ResourcePatch, actor: string, options?: UpdateOptions): Promise<ResourceRecord>;
  /** Cascade: scopes, markers, client links and permissions (resource-delete.ts). 403 for a system resource. */
  delete(id: string): Promise<void>;
  /** The tenant's resources as a list source (shared/lists): pages with their cursor keys, the exact count. */
  collection(tenantId: string): CollectionSource<ResourceRecord>;
  listPage(tenantId: string, request: CollectionPageRequest): Promise<CollectionPage<ResourceRecord>>;
  listAll(tenantId: string): Promise<ResourceRecord[]>;
  count(tenantId: string): Promise<number>;
}

const EDITABLE: readonly (keyof ResourceRecord)[] = ['resource_name', 'resource_description', 'resource_metadata', 'app_metadata'];
const MAX_SCOPES_ON_CREATE = 47;

export function resourcesRepository(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  secretBox: SecretBox,
): ResourcesRepository {
  const get = async (id: string) => {
    const item = await getItem(db, tableName, keys.resource(id), now());
    return item ? toRecord<ResourceRecord>(item) : undefined;
  };
  // docs/contract.md §8: names the field, never echoes the identifier sent.
  const identifierTaken = () => conflict('body.resource_metadata.identifier_url: a resource with this identifier_url already exists.');

  return {
    get,

    async create(input, actor, scopes = []) {
      if (scopes.length > MAX_SCOPES_ON_CREATE) throw badRequest(`At most ${MAX_SCOPES_ON_CREATE} scopes can be created with a resource.`);
      if (new Set(scopes.map((s) => s.scope_name)).size !== scopes.length) throw badRequest('scopes: duplicate scope_name.');
      const at = now().toISOString();
      const record = await newResourceRecord(input.id ?? uuidv7(), input, actor, at, secretBox);
      const scopeRecords: ScopeRecord[] = scopes.map((s) => ({
        id: s.id ?? uuidv7(),
        tenant_id: record.tenant_id,
        resource_id: record.id,
        scope_name: s.scope_name,
        ...(s.scope_description !== undefined ? { scope_description: s.scope_description } : {}),
        version: 1,
        ...newAuditFields(actor, at),
      }));
      record.scope_names = Object.fromEntries(scopeRecords.map((s) => [s.id, s.scope_name]));
      record.aggregations.scopes = scopeRecords.length;
      await commitPlan(db, tableName, [
        [
          putItem(resourceItem(record), {
            condition: notExists,
            onFail: () => conflict(`A resource with id ${record.id} already exists.`),
          }),
          ...claimIdentifier(record, identifierTaken),
          countWrite(record.tenant_id, 'RESOURCES', 1),
          ...scopeRecords.flatMap(putScopeWrites),
        ],
      ]);
      return record;
    },

    ...resourceTokenReads(db, tableName, now),

    async findIdByIdentifier(tenantId, identifierUrl) {
      const marker = await getItem(db, tableName, keys.marker('RESOURCE_ID_URL', tenantId, identifierUrl), now());
      return typeof marker?.target_id === 'string' ? marker.target_id : undefined;
    },

    async update(id, patch, actor, options = {}) {
      const { signing_secret: plaintext, ...metadataPatch } = patch.resource_metadata ?? {};
      const sealedSecret = plaintext === undefined ? undefined : await secretBox.seal(plaintext);
      return updateWithRetry({
        load: () => get(id),
        notFound: () => notFound('Resource not found.'),
        ...(options.expectedVersion !== undefined ? { expectedVersion: options.expectedVersion } : {}),
        write: async (current) => {
          const p = { ...patch, resource_metadata: metadataPatch } as DeepPartial<ResourceRecord>;
          const next = mergePatch<ResourceRecord>(current, p);
          const before = current.resource_metadata;
          if (next.resource_metadata.is_system !== before.is_system) throw forbidden('resource_metadata.is_system cannot be changed.');
          const moved = next.resource_metadata.identifier_url !== before.identifier_url;
          if (moved && before.is_system) throw forbidden("The management API's identifier_url cannot be changed.");
          next.resource_metadata = sealedSecret
            ? { ...next.resource_metadata, signing_secret: sealedSecret }
            : await sealSigningSecret(next.resource_metadata, undefined, secretBox);
          const changed: Record<string, unknown> = {
            ...changedFields(current, next, EDITABLE),
            updated_by: actor,
            updated_date: now().toISOString(),
          };
          const writes: Write[] = [];
          if (moved) {
            // The new marker's view copies this read's scope names: a scope change committed
            // since (it bumps links_version) must fail this write, which then re-reads. Items
            // written before the marker carried the view also had a GSI2 entry by identifier:
            // dropped here, so it never names the old identifier.
            writes.push(
              versionedUpdate(keys.resource(id), changed, current.version, {
                condition: equals('links_version', current.links_version),
                remove: ['GSI2PK', 'GSI2SK'],
              }),
            );
            writes.push(...releaseIdentifier(current), ...claimIdentifier(next, identifierTaken));
          } else {
            writes.push(versionedUpdate(keys.resource(id), changed, current.version));
            writes.push(...copyWrites([{ kind: 'resource-changed', before: current, after: next }]));
          }
          const { attributes } = await commitPlan(db, tableName, [writes]);
          if (attributes) return toRecord<ResourceRecord>(attributes);
          const updated = await get(id);
          if (!updated) throw notFound('Resource not found.');
          return updated;
        },
      });
    },

    delete: (id) => deleteResource(db, tableName, id),

    ...tenantCollectionMethods<ResourceRecord>(db, tableName, 'RESOURCES', now),
  };
}

export function resourceItem(record: ResourceRecord) {
  return {
    ...keys.resource(record.id),
    GSI1PK: keys.collection(record.tenant_id, 'RESOURCES'),
    GSI1SK: record.id,
    ...entity('Resource'),
    ...record,
  };
}
