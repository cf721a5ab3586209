import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../../errors.ts';
import type { CollectionSource } from '../../lists/collection-source.ts';
import { type AuditFields, newAuditFields } from '../../records/common.ts';
import type { IdentityProviderRecord } from '../../records/identity-provider-record.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { entity, toRecord } from '../core/entity.ts';
import { and, type Condition, equals, exists, notExists } from '../core/expression.ts';
import { deleteMarker, putMarker } from '../core/markers.ts';
import { countWrite, TENANT_DELETED, tenantCollectionMethods } from '../core/reads/collections.ts';
import { queryGsi2 } from '../core/reads/query-all.ts';
import { getItem } from '../core/reads/read-items.ts';
import { withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { updateWithRetry, versionedUpdate } from '../core/versioned-update.ts';
import { deleteItem, putItem, updateItem, type Write } from '../core/writes.ts';

/**
 * What token exchange and federated login read of a tenant's identity providers (docs/federation.md
 * "Identity providers"). Every read names the tenant: a provider of another tenant is never found.
 */
export interface IdentityProviderReads {
  /** Consistent GetItem; undefined if absent or another tenant's. */
  byId(tenantId: string, id: string): Promise<IdentityProviderRecord | undefined>;
  /** Through the `IDP_NAME` marker (consistent), then the record. */
  byName(tenantId: string, providerName: string): Promise<IdentityProviderRecord | undefined>;
  /** GSI2 `IDP_ISSUER#{t}#{issuer}` (eventually consistent); several providers may share an issuer. */
  byIssuer(tenantId: string, issuer: string): Promise<IdentityProviderRecord[]>;
  /** The enabled providers in `provider_name` order (the login page's buttons). */
  enabled(tenantId: string): Promise<IdentityProviderRecord[]>;
}

/** What POST stores; the secret arrives sealed (the use case seals it, the store never sees it). */
export type NewIdentityProvider = Omit<IdentityProviderRecord, 'id' | 'provider_type' | 'version' | keyof AuditFields>;

/** A PATCH: absent fields stay; `null` removes an optional one (`client_secret_sealed: null` removes the secret). */
export interface IdentityProviderPatch {
  provider_name?: string;
  issuer?: string;
  jwks_uri?: string | null;
  discovery_url?: string | null;
  client_id?: string;
  client_secret_sealed?: string | null;
  scopes?: string[];
  audience?: string | null;
  enabled?: boolean;
}

/** The reads plus the management API's writes (shared/management/identity-providers/). */
export interface IdentityProvidersRepository extends IdentityProviderReads {
  /**
   * The record, its name marker and the tenant's counter in one transaction; 409 naming `provider_name`
   * when taken, 409 when the tenant holds MAX_IDENTITY_PROVIDERS, 404 when the tenant was deleted.
   */
  create(input: NewIdentityProvider, actor: string): Promise<IdentityProviderRecord>;
  /** Merge under the version lock (no lost update); a new name moves its marker in the same transaction. 404 if missing. */
  update(tenantId: string, id: string, patch: IdentityProviderPatch, actor: string): Promise<IdentityProviderRecord>;
  /** The record, its marker and the counter's decrement in one transaction; false if there is none. */
  delete(tenantId: string, id: string): Promise<boolean>;
  collection(tenantId: string): CollectionSource<IdentityProviderRecord>;
  count(tenantId: string): Promise<number>;
}

export const providerNameMarker = (tenantId: string, providerName: string) => keys.marker('IDP_NAME', tenantId, providerName);

const nameTaken = () => conflict('body.provider_name: an identity provider with this provider_name already exists in the tenant.');
const missing = () => notFound('Identity provider not found.');

/**
 * The most providers one tenant holds (docs/federation.md "Identity providers"): the login page
 * offers every enabled one, and token exchange and the page read the whole list.
 */
export const MAX_IDENTITY_PROVIDERS = 50;

const COUNTER = entity('Counter');

/** The tenant's counter: not closed by the tenant's delete (collections.ts `countWrite`), and below the cap. */
const belowCapInLiveTenant: Condition = (x) =>
  `attribute_not_exists(${x.name(TENANT_DELETED)}) AND (attribute_not_exists(${x.name('count')}) OR ${x.name('count')} < ${x.value(MAX_IDENTITY_PROVIDERS)})`;

const OPTIONAL_FIELDS = ['jwks_uri', 'discovery_url', 'client_secret_sealed', 'audience'] as const;
const REQUIRED_FIELDS = ['provider_name', 'issuer', 'client_id', 'scopes', 'enabled'] as const;

export function identityProvidersRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): IdentityProvidersRepository {
  const byId = async (tenantId: string, id: string) => {
    const item = await getItem(db, tableName, keys.identityProvider(tenantId, id), now());
    return item ? toRecord<IdentityProviderRecord>(item) : undefined;
  };
  const collection = tenantCollectionMethods<IdentityProviderRecord>(db, tableName, 'IDENTITY_PROVIDERS', now);

  return {
    byId,

    async byName(tenantId, providerName) {
      const marker = await getItem(db, tableName, providerNameMarker(tenantId, providerName), now());
      const id = marker?.target_id;
      if (typeof id !== 'string') return undefined;
      const record = await byId(tenantId, id);
      // A rename commits the marker and the record together; the check keeps a reader honest anyway.
      return record?.provider_name === providerName ? record : undefined;
    },

    async byIssuer(tenantId, issuer) {
      const items = await queryGsi2(db, tableName, keys.identityProviderIssuer(tenantId, issuer));
      return items.map((i) => toRecord<IdentityProviderRecord>(i)).filter((r) => r.tenant_id === tenantId && r.issuer === issuer);
    },

    async enabled(tenantId) {
      const all = await collection.listAll(tenantId);
      return all
        .filter((p) => p.enabled)
        .sort((a, b) => (a.provider_name < b.provider_name ? -1 : a.provider_name > b.provider_name ? 1 : 0));
    },

    async create(input, actor) {
      const record: IdentityProviderRecord = {
        id: uuidv7(),
        tenant_id: input.tenant_id,
        provider_name: input.provider_name,
        provider_type: 'oidc',
        issuer: input.issuer,
        ...(input.jwks_uri !== undefined ? { jwks_uri: input.jwks_uri } : {}),
        ...(input.discovery_url !== undefined ? { discovery_url: input.discovery_url } : {}),
        client_id: input.client_id,
        ...(input.client_secret_sealed !== undefined ? { client_secret_sealed: input.client_secret_sealed } : {}),
        scopes: input.scopes,
        ...(input.audience !== undefined ? { audience: input.audience } : {}),
        enabled: input.enabled,
        version: 1,
        ...newAuditFields(actor, now().toISOString()),
      };
      const counter = keys.collectionCounter(record.tenant_id, 'IDENTITY_PROVIDERS');
      return withRetries(async () => {
        // The cap and the tenant's delete are decided on this read; the increment's condition holds
        // them under a race, failing as a RetryableConflict so the next round reads the answer here.
        const current = await getItem(db, tableName, counter, now());
        if (current?.[TENANT_DELETED]) throw notFound('The tenant no longer exists.');
        const count = typeof current?.count === 'number' ? current.count : 0;
        if (count >= MAX_IDENTITY_PROVIDERS) {
          throw conflict(`The tenant already holds ${MAX_IDENTITY_PROVIDERS} identity providers, the most it may hold.`);
        }
        await commitPlan(db, tableName, [
          [
            putItem(providerItem(record), {
              condition: notExists,
              onFail: () => conflict(`An identity provider with id ${record.id} already exists.`),
            }),
            putMarker(providerNameMarker(record.tenant_id, record.provider_name), record.id, { onTaken: nameTaken }),
            updateItem(counter, {
              set: [
                ['type', COUNTER.type],
                ['schema_version', COUNTER.schema_version],
              ],
              add: [['count', 1]],
              condition: belowCapInLiveTenant,
            }),
          ],
        ]);
        return record;
      });
    },

    update(tenantId, id, patch, actor) {
      return updateWithRetry({
        load: () => byId(tenantId, id),
        notFound: missing,
        write: async (current) => {
          const fields: Record<string, unknown> = { updated_by: actor, updated_at: now().toISOString() };
          const writes: Write[] = [];
          for (const f of REQUIRED_FIELDS) if (patch[f] !== undefined) fields[f] = patch[f];
          // `null` removes; versionedUpdate REMOVEs a field set to undefined.
          for (const f of OPTIONAL_FIELDS) if (patch[f] !== undefined) fields[f] = patch[f] ?? undefined;
          if (patch.provider_name !== undefined && patch.provider_name !== current.provider_name) {
            writes.push(
              deleteMarker(providerNameMarker(tenantId, current.provider_name), id),
              putMarker(providerNameMarker(tenantId, patch.provider_name), id, { onTaken: nameTaken }),
            );
          }
          if (patch.issuer !== undefined) fields.GSI2PK = keys.identityProviderIssuer(tenantId, patch.issuer);
          const { attributes } = await commitPlan(db, tableName, [
            [versionedUpdate(keys.identityProvider(tenantId, id), fields, current.version), ...writes],
          ]);
          if (attributes) return toRecord<IdentityProviderRecord>(attributes);
          const after = await byId(tenantId, id);
          if (!after) throw missing();
          return after;
        },
      });
    },

    delete(tenantId, id) {
      return withRetries(async () => {
        const provider = await byId(tenantId, id);
        if (!provider) return false;
        await commitPlan(db, tableName, [
          [
            deleteItem(keys.identityProvider(tenantId, id), { condition: and(exists, equals('version', provider.version)) }),
            deleteMarker(providerNameMarker(tenantId, provider.provider_name), id),
            countWrite(tenantId, 'IDENTITY_PROVIDERS', -1),
          ],
        ]);
        return true;
      });
    },

    collection: collection.collection,
    count: collection.count,
  };
}

function providerItem(record: IdentityProviderRecord) {
  return {
    ...keys.identityProvider(record.tenant_id, record.id),
    GSI1PK: keys.collection(record.tenant_id, 'IDENTITY_PROVIDERS'),
    GSI1SK: record.id,
    GSI2PK: keys.identityProviderIssuer(record.tenant_id, record.issuer),
    GSI2SK: record.id,
    ...entity('IdentityProvider'),
    ...record,
  };
}

/** The reads alone, for token exchange and federated login (docs/federation.md). */
export function identityProviderReads(db: DynamoDBDocumentClient, tableName: string): IdentityProviderReads {
  const { byId, byName, byIssuer, enabled } = identityProvidersRepository(db, tableName, () => new Date());
  return { byId, byName, byIssuer, enabled };
}
