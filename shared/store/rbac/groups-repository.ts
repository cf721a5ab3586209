import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../../errors.ts';
import type { CollectionSource } from '../../lists/collection-source.ts';
import { newAuditFields } from '../../records/common.ts';
import type { GroupPatch, GroupRecord, NewGroup } from '../../records/group-record.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { entity, toRecord } from '../core/entity.ts';
import { and, equals, exists, notExists } from '../core/expression.ts';
import { deleteMarker, putMarker } from '../core/markers.ts';
import { type CollectionPage, type CollectionPageRequest, countWrite, tenantCollectionMethods } from '../core/reads/collections.ts';
import { getItem } from '../core/reads/read-items.ts';
import { withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { updateWithRetry, versionedUpdate } from '../core/versioned-update.ts';
import { deleteItem, putItem, type Write } from '../core/writes.ts';
import { sweepGroupLinks } from './group-delete.ts';
import { groupNameMarker } from './group-markers.ts';

/**
 * Groups (docs/contract.md §6; fields on GroupRecord). `GROUP#{id}` / `GROUP` in GSI1 `TENANT#{t}#GROUPS`,
 * the `GROUP_NAME` marker and the tenant's `COUNT#GROUPS` change in the same transaction as the
 * record. Links (members, roles, nested groups) are group-links-repository.ts and group-nesting.ts.
 */
export interface GroupsRepository {
  /** 409 naming `body.group_name` when the name is taken in the tenant. */
  create(input: NewGroup, actor: string): Promise<GroupRecord>;
  get(id: string): Promise<GroupRecord | undefined>;
  /** Merge under the version lock; the marker moves in the same transaction. 404 if missing. */
  update(id: string, patch: GroupPatch, actor: string): Promise<GroupRecord>;
  /**
   * Record + marker + count in one transaction (from then on the group grants nothing), then its
   * links and the mirrors they keep, in bounded pages (group-delete.ts). `accept` false → nothing.
   * Re-running on an id with no record still sweeps leftovers, so an interrupted delete finishes.
   */
  delete(id: string, accept?: (g: GroupRecord) => boolean): Promise<boolean>;
  collection(tenantId: string): CollectionSource<GroupRecord>;
  listPage(tenantId: string, request: CollectionPageRequest): Promise<CollectionPage<GroupRecord>>;
  listAll(tenantId: string): Promise<GroupRecord[]>;
  count(tenantId: string): Promise<number>;
}

const taken = () => conflict('body.group_name: a group with this group_name already exists.');

export function newGroupRecord(id: string, input: NewGroup, actor: string, at: string): GroupRecord {
  return {
    id,
    tenant_id: input.tenant_id,
    group_name: input.group_name,
    ...(input.group_description !== undefined ? { group_description: input.group_description } : {}),
    aggregations: { members: 0, roles: 0, groups: 0 },
    role_ids: {},
    parent_ids: {},
    ancestor_ids: {},
    depth: 1,
    height: 1,
    version: 1,
    links_version: 1,
    ...newAuditFields(actor, at),
  };
}

export function groupItem(record: GroupRecord) {
  return {
    ...keys.group(record.id),
    GSI1PK: keys.collection(record.tenant_id, 'GROUPS'),
    GSI1SK: record.id,
    ...entity('Group'),
    ...record,
  };
}

export function groupsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): GroupsRepository {
  const get = async (id: string) => {
    const item = await getItem(db, tableName, keys.group(id), now());
    return item ? toRecord<GroupRecord>(item) : undefined;
  };

  return {
    get,

    async create(input, actor) {
      const record = newGroupRecord(input.id ?? uuidv7(), input, actor, now().toISOString());
      await commitPlan(db, tableName, [
        [
          putItem(groupItem(record), { condition: notExists, onFail: () => conflict(`A group with id ${record.id} already exists.`) }),
          putMarker(groupNameMarker(record.tenant_id, record.group_name), record.id, { onTaken: taken }),
          countWrite(record.tenant_id, 'GROUPS', 1),
        ],
      ]);
      return record;
    },

    update: (id, patch, actor) =>
      updateWithRetry({
        load: () => get(id),
        notFound: () => notFound('Group not found.'),
        write: async (current) => {
          const fields: Record<string, unknown> = { updated_by: actor, updated_at: now().toISOString() };
          const writes: Write[] = [];
          if (patch.group_name !== undefined && patch.group_name !== current.group_name) {
            fields.group_name = patch.group_name;
            const before = groupNameMarker(current.tenant_id, current.group_name);
            const after = groupNameMarker(current.tenant_id, patch.group_name);
            // A change of case only keeps the same marker.
            if (before.PK !== after.PK) writes.push(deleteMarker(before, id), putMarker(after, id, { onTaken: taken }));
          }
          // versionedUpdate REMOVEs a field set to undefined.
          if (patch.group_description === null) fields.group_description = undefined;
          else if (patch.group_description !== undefined) fields.group_description = patch.group_description;
          const { attributes } = await commitPlan(db, tableName, [[versionedUpdate(keys.group(id), fields, current.version), ...writes]]);
          if (attributes) return toRecord<GroupRecord>(attributes);
          const reread = await get(id);
          if (!reread) throw notFound('Group not found.');
          return reread;
        },
      }),

    async delete(id, accept = () => true) {
      const deleted = await withRetries(async () => {
        const group = await get(id);
        if (!group) return false;
        if (!accept(group)) return undefined;
        await commitPlan(db, tableName, [
          [
            deleteItem(keys.group(id), { condition: and(exists, equals('version', group.version)) }),
            deleteMarker(groupNameMarker(group.tenant_id, group.group_name), id),
            countWrite(group.tenant_id, 'GROUPS', -1),
          ],
        ]);
        return true;
      });
      // Another tenant's group: not ours to touch.
      if (deleted === undefined) return false;
      await sweepGroupLinks(db, tableName, now, id);
      return deleted;
    },

    ...tenantCollectionMethods<GroupRecord>(db, tableName, 'GROUPS', now),
  };
}
