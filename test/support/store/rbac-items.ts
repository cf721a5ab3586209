import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TokenGrants } from '#shared/records/client-record.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { entity } from '#shared/store/core/entity.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import { newGroupRecord } from '#shared/store/rbac/groups-repository.ts';

/**
 * Roles, groups and a user's RBAC mirrors written straight into the table with the pinned shapes
 * of docs/data-model.md (role `token_grants`; group `role_ids`/`parent_ids`/`ancestor_ids`/`depth`/
 * `height`; user `token_grants`/`role_ids`/`group_ids`), for resolver and read-count tests that
 * need many records quickly. The HTTP tests build the same through the routes.
 */
const ACTOR = '019b0000-0000-7000-8000-0000000000cc';
const set = (ids: readonly string[]) => Object.fromEntries(ids.map((id) => [id, true as const]));

export interface RbacTable {
  db: DynamoDBDocumentClient;
  tableName: string;
}

export async function putRole(t: RbacTable, o: { tenantId?: string; grants?: TokenGrants; id?: string } = {}): Promise<string> {
  const id = o.id ?? uuidv7();
  const tenant_id = o.tenantId ?? DEFAULT_TENANT_ID;
  const at = new Date().toISOString();
  await t.db.send(
    new PutCommand({
      TableName: t.tableName,
      Item: {
        ...keys.role(id),
        GSI1PK: keys.collection(tenant_id, 'ROLES'),
        GSI1SK: id,
        ...entity('Role'),
        id,
        tenant_id,
        role_name: `role ${id}`,
        aggregations: { permissions: 0, members: 0 },
        token_grants: o.grants ?? {},
        token_grants_version: 1,
        links_version: 1,
        version: 1,
        created_by: ACTOR,
        created_at: at,
        updated_by: ACTOR,
        updated_at: at,
      },
    }),
  );
  return id;
}

export async function putGroup(
  t: RbacTable,
  o: { tenantId?: string; roles?: readonly string[]; parents?: readonly string[]; ancestors?: readonly string[]; depth?: number } = {},
): Promise<string> {
  const id = uuidv7();
  const record = newGroupRecord(
    id,
    { tenant_id: o.tenantId ?? DEFAULT_TENANT_ID, group_name: `group ${id}` },
    ACTOR,
    new Date().toISOString(),
  );
  await t.db.send(
    new PutCommand({
      TableName: t.tableName,
      Item: {
        ...keys.group(id),
        GSI1PK: keys.collection(record.tenant_id, 'GROUPS'),
        GSI1SK: id,
        ...entity('Group'),
        ...record,
        role_ids: set(o.roles ?? []),
        parent_ids: set(o.parents ?? []),
        ancestor_ids: set(o.ancestors ?? []),
        depth: o.depth ?? 1,
      },
    }),
  );
  return id;
}

/**
 * A chain of `levels` groups, root first, each nested in the one before (`ancestor_ids` = every
 * group above it), each holding the roles `rolesOf(level)` returns. Returns the ids, root first.
 */
export async function putChain(t: RbacTable, levels: number, rolesOf: (level: number) => string[], tenantId?: string): Promise<string[]> {
  const chain: string[] = [];
  for (let level = 0; level < levels; level++) {
    chain.push(
      await putGroup(t, {
        ...(tenantId ? { tenantId } : {}),
        roles: rolesOf(level),
        parents: level ? [chain[level - 1]!] : [],
        ancestors: [...chain],
        depth: level + 1,
      }),
    );
  }
  return chain;
}

/** Sets a user's mirrors (direct permissions, direct roles, direct groups) as the link changes keep them. */
export async function setUserRbac(
  t: RbacTable,
  userId: string,
  o: { grants?: TokenGrants; roles?: readonly string[]; groups?: readonly string[] },
): Promise<void> {
  await t.db.send(
    new UpdateCommand({
      TableName: t.tableName,
      Key: keys.user(userId),
      UpdateExpression: 'SET token_grants = :g, role_ids = :r, group_ids = :gr',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':g': o.grants ?? {}, ':r': set(o.roles ?? []), ':gr': set(o.groups ?? []) },
    }),
  );
}
