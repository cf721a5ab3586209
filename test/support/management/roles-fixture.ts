import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/store/core/table-keys.ts';
import { usersFixture } from './users-fixture.ts';

/** The Users fixture plus Roles helpers: `createRole` over HTTP and raw reads of stored items. */
export async function rolesFixture(env: Record<string, string> = {}) {
  const fx = await usersFixture(env);
  const { runtime } = fx.svc.stack;
  const table = runtime.config.tableName;
  return {
    ...fx,
    /** POST /roles with a fresh name, expecting 201. */
    async createRole(body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
      const res = await fx.call('POST', '/roles', { body: { role_name: `role-${randomUUID()}`, ...body }, headers });
      if (res.status !== 201) throw new Error(`create role: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Record<string, any>;
    },
    /** One item as stored (consistent read). */
    async item(key: { PK: string; SK: string }) {
      return (await runtime.db.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
    },
    /** Every item of a partition (consistent read). */
    async partition(pk: string) {
      const out = await runtime.db.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
        }),
      );
      return out.Items ?? [];
    },
    roleItem: (id: string) =>
      runtime.db.send(new GetCommand({ TableName: table, Key: keys.role(id), ConsistentRead: true })).then((r) => r.Item),
  };
}

export type RolesFixture = Awaited<ReturnType<typeof rolesFixture>>;

/** Every key of a Role response without `fields` for a role created with a name only. */
export const ROLE_KEYS = ['aggregations', 'created_at', 'created_by', 'id', 'role_name', 'tenant_id', 'updated_at', 'updated_by'];
