import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { badRequest, conflict, notFound } from '../../errors.ts';
import type { PermissionRequest } from '../../records/client-link-records.ts';
import type { TokenGrants } from '../../records/client-record.ts';
import { newAuditFields } from '../../records/common.ts';
import type { HeldPermission, PermissionHolderKind } from '../../records/held-permission.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import { toRecord } from '../core/entity.ts';
import { queryPrefix } from '../core/reads/query-all.ts';
import { getItem, getItems } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { keyString } from '../core/writes.ts';
import { grantHeldPermissionsUnit, heldPermissionHolder, holderRecordKey, revokeHeldPermissionsUnit } from './held-permission-writes.ts';
import { commitLinkChange, LinkPlan } from './link-commit.ts';
import { pairsOf } from './permission-pairs.ts';

/**
 * Permissions held by a role or directly by a user (docs/contract.md §6 `/roles/{id}/permissions`,
 * `/users/{id}/permissions`): the same rules for both, all-or-nothing over the whole body through
 * `commitLinkChange`. Checks in order on consistent reads: unknown holder 404, unknown resource (or
 * another tenant's; the system resource is every tenant's) 404, a scope not of its resource 400,
 * an existing permission when granting 409, a missing one when revoking 404; then one unit per
 * resource (items, scope holder counts, the holder's count and `token_grants` entry), guarded by
 * the holder's `links_version`, re-read on a lost race.
 */
export interface HeldPermissions {
  grant(holderId: string, permissions: readonly PermissionRequest[], actor: string): Promise<void>;
  revoke(holderId: string, permissions: readonly PermissionRequest[]): Promise<void>;
  /** The holder's permissions in (resource, scope) order: one consistent Query. 404 if the holder is unknown. */
  list(holderId: string): Promise<HeldPermission[]>;
}

/** What a holder record carries for its copy (a user made before direct permissions has none of it). */
interface HolderRecord {
  id: string;
  tenant_id: string;
  token_grants?: TokenGrants;
  token_grants_version?: number;
  links_version?: number;
}

const NOUNS: Record<PermissionHolderKind, string> = { role: 'Role', user: 'User' };

function byResource<T extends { resource_id: string }>(xs: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of xs) out.set(x.resource_id, [...(out.get(x.resource_id) ?? []), x]);
  return out;
}

/**
 * `commitLinkChange` hands back the marks of committed units; a unit completes several requested
 * changes (one resource's scopes), so its mark lists them comma-separated.
 */
const finished = (done: ReadonlySet<string>): Set<string> => new Set([...done].flatMap((m) => m.split(',')));

export function heldPermissions(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  kind: PermissionHolderKind,
): HeldPermissions {
  const noun = NOUNS[kind];
  const partition = (id: string) => (kind === 'role' ? keys.rolePartition(id) : keys.userPartition(id));
  const load = async (id: string) => {
    const item = await getItem(db, tableName, holderRecordKey(kind, id), now());
    if (!item) throw notFound(`${noun} not found.`);
    return toRecord<HolderRecord>(item);
  };
  const permissionsOf = async (id: string) =>
    (await queryPrefix(db, tableName, partition(id), keys.permissionPrefix)).map((i) => toRecord<HeldPermission>(i));

  /**
   * A holder without a copy yet (a user before its first direct permission) gets an empty one at
   * its current `links_version`, outside the change's transaction (an empty copy grants nothing),
   * only if still missing; the plan then re-reads it.
   */
  const ensureCopy = async (r: HolderRecord): Promise<HolderRecord> => {
    if (r.token_grants !== undefined) return r;
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: holderRecordKey(kind, r.id),
          UpdateExpression: 'SET #g = :empty, #lv = if_not_exists(#lv, :zero), #gv = if_not_exists(#lv, :zero)',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#g)',
          ExpressionAttributeNames: { '#g': 'token_grants', '#gv': 'token_grants_version', '#lv': 'links_version' },
          ExpressionAttributeValues: { ':empty': {}, ':zero': 0 },
        }),
      );
    } catch (err) {
      if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') translateError(err);
    }
    return load(r.id);
  };

  const idField = kind === 'role' ? 'role_id' : 'user_id';

  return {
    grant: (holderId, requests, actor) =>
      commitLinkChange(db, tableName, async (marks) => {
        const done = finished(marks);
        const pairs = pairsOf(requests);
        const current = await load(holderId);
        const resourceIds = [...new Set(pairs.map((x) => x.resourceId))];
        const resources = await getItems(db, tableName, resourceIds.map(keys.resource), now());
        const resource = (id: string) => {
          const item = resources.get(keyString(keys.resource(id)));
          return item ? toRecord<ResourceRecord>(item) : undefined;
        };
        for (const id of resourceIds) {
          const r = resource(id);
          // The system resource (the management API) is shared by every tenant.
          if (!r || (r.tenant_id !== current.tenant_id && !r.resource_metadata.is_system))
            throw notFound('body.permissions: a resource was not found.');
        }
        for (const { resourceId, scopeId } of pairs) {
          if (!(scopeId in resource(resourceId)!.scope_names)) throw badRequest('a scope is not a scope of its resource.');
        }
        const held = byResource(await permissionsOf(holderId));
        const at = now().toISOString();
        const todo: HeldPermission[] = [];
        for (const { resourceId, scopeId } of pairs) {
          const e = held.get(resourceId)?.find((p) => p.scope_id === scopeId);
          if (e && !done.has(e.id)) throw conflict(`body.permissions: a scope is already granted to this ${kind}.`);
          if (e) continue;
          todo.push({
            id: uuidv7(),
            tenant_id: current.tenant_id,
            [idField]: holderId,
            resource_id: resourceId,
            scope_id: scopeId,
            ...newAuditFields(actor, at),
          });
        }
        // Only now, the body being valid, does a holder without a copy get its empty one.
        const holder = await ensureCopy(current);
        const plan = new LinkPlan().guard(holderRecordKey(kind, holderId), holder.links_version ?? 0);
        for (const [resourceId, ps] of byResource(todo)) {
          const scopeIds = [...(held.get(resourceId) ?? []).map((p) => p.scope_id), ...ps.map((p) => p.scope_id)];
          // One unit per resource: its marks are its permission ids, recorded when it commits.
          plan.add(
            [grantHeldPermissionsUnit(kind, ps, heldPermissionHolder(kind, holder as unknown as Record<string, unknown>), scopeIds)],
            ps.map((p) => p.id).join(','),
          );
        }
        return plan;
      }),

    revoke: (holderId, requests) =>
      commitLinkChange(db, tableName, async (marks) => {
        const done = finished(marks);
        const holder = await load(holderId);
        const held = byResource(await permissionsOf(holderId));
        const todo: HeldPermission[] = [];
        for (const { resourceId, scopeId } of pairsOf(requests)) {
          const e = held.get(resourceId)?.find((p) => p.scope_id === scopeId);
          if (!e && !done.has(`${resourceId}#${scopeId}`)) throw notFound(`body.permissions: a scope is not granted to this ${kind}.`);
          if (e) todo.push(e);
        }
        const plan = new LinkPlan().guard(holderRecordKey(kind, holderId), holder.links_version ?? 0);
        for (const [resourceId, ps] of byResource(todo)) {
          const gone = new Set(ps.map((p) => p.scope_id));
          const remaining = (held.get(resourceId) ?? []).map((p) => p.scope_id).filter((s) => !gone.has(s));
          plan.add(
            [revokeHeldPermissionsUnit(kind, ps, heldPermissionHolder(kind, holder as unknown as Record<string, unknown>), remaining)],
            ps.map((p) => `${p.resource_id}#${p.scope_id}`).join(','),
          );
        }
        return plan;
      }),

    async list(holderId) {
      await load(holderId);
      return permissionsOf(holderId);
    },
  };
}
