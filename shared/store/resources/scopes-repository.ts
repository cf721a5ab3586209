import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict, forbidden, notFound } from '../../errors.ts';
import type { ClientPermission } from '../../records/client-link-records.ts';
import type { ClientRecord } from '../../records/client-record.ts';
import { newAuditFields } from '../../records/common.ts';
import type { HeldPermission } from '../../records/held-permission.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import type { NewScope, ScopePatch, ScopeRecord } from '../../records/scope-record.ts';
import type { UpdateOptions } from '../clients/clients-repository.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { toRecord } from '../core/entity.ts';
import { and, exists } from '../core/expression.ts';
import { putMarker } from '../core/markers.ts';
import { changedFields, mergePatch } from '../core/merge-patch.ts';
import { queryGsi2, queryPrefix } from '../core/reads/query-all.ts';
import { getItem, getItems } from '../core/reads/read-items.ts';
import { RetryableConflict, withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { updateWithRetry, versionedUpdate } from '../core/versioned-update.ts';
import { deleteItem, keyString, updateItem, type Write } from '../core/writes.ts';
import {
  heldPermissionHolder,
  heldPermissionKind,
  holderIdOf,
  holderRecordKey,
  revokeHeldPermissionUnit,
} from '../rbac/held-permission-writes.ts';
import { revokePermissionUnit } from '../rbac/link-writes.ts';
import { clientHolder, copyWrites } from '../token-path/token-copies.ts';
import { deleteScopeNameMarker, putScopeWrites, scopeNameTaken } from './scope-items.ts';

/**
 * Scopes of a resource (spec §2.8; fields on ScopeRecord). Items `RESOURCE#{r}` / `SCOPE#{id}`
 * and name markers `RESOURCE#{r}` / `UNIQUE#SCOPE_NAME#{name}`. Every create, rename and delete
 * changes the resource's `scope_names` (what the token endpoint reads) and `aggregations.scopes`
 * in the same transaction.
 */
export interface ScopesRepository {
  /** 404 if the resource does not exist; 409 if the name is taken in the resource. */
  create(resourceId: string, input: NewScope, actor: string): Promise<ScopeRecord>;
  /** Consistent GetItem. */
  get(resourceId: string, scopeId: string): Promise<ScopeRecord | undefined>;
  /** PATCH; a rename moves the name marker (409 if taken). Renaming a system resource's scope: 403. */
  update(resourceId: string, scopeId: string, patch: ScopePatch, actor: string, options?: UpdateOptions): Promise<ScopeRecord>;
  /** Deletes the scope and every permission on it (clients', roles' and users'), fixing the holders' counts. 403 on a system resource. */
  delete(resourceId: string, scopeId: string): Promise<void>;
  /** Every scope of the resource in id (= creation) order: one Query. */
  list(resourceId: string): Promise<ScopeRecord[]>;
}

/**
 * The resource item carries every scope's name (`scope_names`, what /token reads) and holder count:
 * up to ~340 bytes a scope with a 255-character name. At ~1,400 such scopes the item outgrew
 * DynamoDB's 400 KB limit and a create was a 500; capped well below, leaving room for the
 * resource's own fields (app_metadata alone may take ~64 KB).
 */
export const MAX_SCOPES_PER_RESOURCE = 500;

/** Index-lag waits need more patience than write races. */
const CASCADE_ATTEMPTS = 8;

export function scopesRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): ScopesRepository {
  const getResource = async (id: string) => {
    const item = await getItem(db, tableName, keys.resource(id), now());
    if (!item) throw notFound('Resource not found.');
    return toRecord<ResourceRecord>(item);
  };
  const get = async (resourceId: string, scopeId: string) => {
    const item = await getItem(db, tableName, keys.scope(resourceId, scopeId), now());
    return item ? toRecord<ScopeRecord>(item) : undefined;
  };

  return {
    get,

    create: (resourceId, input, actor) =>
      withRetries(async () => {
        const resource = await getResource(resourceId);
        // A limit on the collection, like nested groups' depth (docs/contract.md §6): 409.
        if (resource.aggregations.scopes >= MAX_SCOPES_PER_RESOURCE) {
          throw conflict(`The resource has the maximum of ${MAX_SCOPES_PER_RESOURCE} scopes; delete one first.`);
        }
        const at = now().toISOString();
        const scope: ScopeRecord = {
          id: input.id ?? uuidv7(),
          tenant_id: resource.tenant_id,
          resource_id: resourceId,
          scope_name: input.scope_name,
          ...(input.scope_description !== undefined ? { scope_description: input.scope_description } : {}),
          version: 1,
          ...newAuditFields(actor, at),
        };
        await commitPlan(db, tableName, [
          [
            ...putScopeWrites(scope),
            updateItem(keys.resource(resourceId), {
              set: [[['scope_names', scope.id], scope.scope_name]],
              add: [
                [['aggregations', 'scopes'], 1],
                ['links_version', 1],
              ],
              // Parallel creates must not pass the cap either; a failure (deleted, or full) re-reads.
              condition: and(exists, (x) => `${x.name(['aggregations', 'scopes'])} < ${x.value(MAX_SCOPES_PER_RESOURCE)}`),
              onFail: () => new RetryableConflict('The resource changed meanwhile; retry.'),
            }),
            ...copyWrites([{ kind: 'scope-added', resource, scopeId: scope.id, name: scope.scope_name }]),
          ],
        ]);
        return scope;
      }),

    update(resourceId, scopeId, patch, actor, options = {}) {
      return updateWithRetry({
        load: () => get(resourceId, scopeId),
        notFound: () => notFound('Scope not found.'),
        ...(options.expectedVersion !== undefined ? { expectedVersion: options.expectedVersion } : {}),
        write: async (current) => {
          const next = mergePatch<ScopeRecord>(current, patch);
          const changed = {
            ...changedFields(current, next, ['scope_name', 'scope_description']),
            updated_by: actor,
            updated_at: now().toISOString(),
          };
          const writes: Write[] = [versionedUpdate(keys.scope(resourceId, scopeId), changed, current.version)];
          if (next.scope_name !== current.scope_name) {
            const resource = await getResource(resourceId);
            if (resource.resource_metadata.is_system) throw forbidden("The management API's scopes cannot be renamed.");
            writes.push(
              deleteScopeNameMarker(resourceId, current.scope_name, scopeId),
              putMarker(keys.scopeNameMarker(resourceId, next.scope_name), scopeId, { onTaken: scopeNameTaken }),
              updateItem(keys.resource(resourceId), {
                set: [[['scope_names', scopeId], next.scope_name]],
                add: [['links_version', 1]],
                condition: exists,
              }),
              ...copyWrites([{ kind: 'scope-renamed', resource, scopeId, name: next.scope_name }]),
            );
          }
          const { attributes } = await commitPlan(db, tableName, [writes]);
          return attributes ? toRecord<ScopeRecord>(attributes) : { ...next, ...changed, version: current.version + 1 };
        },
      });
    },

    delete(resourceId, scopeId) {
      return withRetries(
        async () => {
          const resource = await getResource(resourceId);
          if (resource.resource_metadata.is_system) throw forbidden("The management API's scopes cannot be removed.");
          const scope = await get(resourceId, scopeId);
          if (!scope) throw notFound('Scope not found.');
          // Holders come from an eventually consistent index; proceed only once it agrees with the
          // exact count on the resource (the guard below then pins that count until commit).
          const holders = await queryGsi2(db, tableName, keys.scopeHolders(scopeId));
          if (holders.length !== (resource.scope_holders[scopeId] ?? 0))
            throw new RetryableConflict('The holder index is catching up; retry.');
          const permissions = holders.filter((h) => h.type === 'ClientPermission').map((h) => toRecord<ClientPermission>(h));
          // Roles' and users' direct permissions (held-permission-writes.ts), by kind.
          const held = holders.flatMap((h) => {
            const kind = heldPermissionKind(h.type);
            return kind ? [{ kind, p: toRecord<HeldPermission>(h) }] : [];
          });
          const unknown = holders.find((h) => h.type !== 'ClientPermission' && !heldPermissionKind(h.type));
          if (unknown) throw new Error(`Scope holder of unknown kind ${String(unknown.type)}`);
          // Whether each holder's token_grants copy is current decides whether the revoke keeps it.
          const owners = await getItems(
            db,
            tableName,
            [...permissions.map((x) => keys.client(x.client_id)), ...held.map(({ kind, p }) => holderRecordKey(kind, holderIdOf(kind, p)))],
            now(),
          );
          const units: Write[][] = permissions.map((x) => {
            const client = owners.get(keyString(keys.client(x.client_id)));
            // A holder gone meanwhile has no copy to keep (its unit then fails and the delete re-reads).
            return revokePermissionUnit(
              x,
              client ? clientHolder(toRecord<ClientRecord>(client)) : { kind: 'client', id: x.client_id, copyIsCurrent: false },
            );
          });
          // A role's or user's permission goes with the scope; one already deleted (its sweep pending) has no copy to keep.
          for (const { kind, p } of held) {
            const owner = owners.get(keyString(holderRecordKey(kind, holderIdOf(kind, p))));
            const holder = owner && heldPermissionHolder(kind, toRecord(owner));
            units.push(revokeHeldPermissionUnit(kind, p, holder));
          }
          units.push([
            deleteItem(keys.scope(resourceId, scopeId), { condition: exists }),
            deleteScopeNameMarker(resourceId, scope.scope_name, scopeId),
            updateItem(keys.resource(resourceId), {
              add: [[['aggregations', 'scopes'], -1]],
              remove: [
                ['scope_names', scopeId],
                ['scope_holders', scopeId],
              ],
              condition: exists,
            }),
            ...copyWrites([{ kind: 'scope-deleted', resource, scopeId }]),
          ]);
          await commitPlan(db, tableName, units, { guards: [{ key: keys.resource(resourceId), expected: resource.links_version }] });
        },
        { attempts: CASCADE_ATTEMPTS },
      );
    },

    async list(resourceId) {
      const items = await queryPrefix(db, tableName, keys.resourcePartition(resourceId), keys.scopePrefix);
      return items.map((i) => toRecord<ScopeRecord>(i));
    },
  };
}
