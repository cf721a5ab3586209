import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { GroupRecord } from '#shared/records/group-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { usersFixture } from './users-fixture.ts';

/** The Users fixture plus what the Groups tests need: `createGroup` over HTTP and stored-state reads. */
export async function groupsFixture(env: Record<string, string> = {}) {
  const fx = await usersFixture(env);
  const { runtime } = fx.svc.stack;
  const get = async (key: { PK: string; SK: string }) =>
    (await runtime.db.send(new GetCommand({ TableName: runtime.config.tableName, Key: key, ConsistentRead: true }))).Item;
  let n = 0;
  return {
    ...fx,
    /** POST /groups with a fresh name, expecting 201. */
    async createGroup(body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
      const res = await fx.call('POST', '/groups', { body: { group_name: `group ${++n} ${Date.now()}`, ...body }, headers });
      if (res.status !== 201) throw new Error(`create group: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Record<string, any>;
    },
    /** The stored group item (consistent), with its token-path copies. */
    storedGroup: async (id: string) => (await get(keys.group(id))) as (GroupRecord & Record<string, unknown>) | undefined,
    storedUser: (id: string) => get(keys.user(id)),
    storedItem: get,
    /** Every item of a group's partition (consistent). */
    async partition(id: string) {
      const res = await runtime.db.send(
        new QueryCommand({
          TableName: runtime.config.tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.groupPartition(id) },
          ConsistentRead: true,
        }),
      );
      return res.Items ?? [];
    },
    /** POST /groups/{parent}/groups {groups: [child]}. */
    nest: (parent: string, ...children: string[]) => fx.call('POST', `/groups/${parent}/groups`, { body: { groups: children } }),
    unnest: (parent: string, ...children: string[]) => fx.call('DELETE', `/groups/${parent}/groups`, { body: { groups: children } }),
  };
}

export type GroupsFixture = Awaited<ReturnType<typeof groupsFixture>>;

export const GROUP_KEYS = ['aggregations', 'created_at', 'created_by', 'group_name', 'id', 'tenant_id', 'updated_at', 'updated_by'].sort();
