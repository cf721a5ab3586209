import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { UNKNOWN_ID } from '../support/management/clients-fixture.ts';
import { type GroupsFixture, groupsFixture } from '../support/management/groups-fixture.ts';

/**
 * docs/contract.md §6 link rules, the same on EVERY link route (§7.6: size and shape before existence):
 * 51 ids → 400 naming the field (POST and DELETE), an unknown id → 404, an existing link when
 * adding → 409, a missing link when removing → 404, and then nothing changes (every stored item of
 * both ends compared); 20 concurrent additions of one link → one 204, nineteen 409.
 * The per-area files test each route's own behaviour; this one holds them all to the rules.
 */
let fx: GroupsFixture;
beforeAll(async () => {
  fx = await groupsFixture();
});
afterAll(async () => fx?.stop());

async function partition(pk: string) {
  const { runtime } = fx.svc.stack;
  const out = await runtime.db.send(
    new QueryCommand({
      TableName: runtime.config.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

async function createRole() {
  const res = await fx.call('POST', '/roles', { body: { role_name: `role ${randomUUID()}` } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
const createUser = async () => (await fx.createUser()).id as string;
const createGroup = async () => (await fx.createGroup()).id as string;

/**
 * One link route: its owner (the path's record) and two far ends, `linked` (linked before the
 * checks) and `fresh`; `body` builds the request from far-end ids; `pks` are the partitions whose
 * items must not change on a failed call.
 */
interface LinkRoute {
  name: string;
  field: string;
  setup(): Promise<{ path: string; linked: string; fresh: string; unknown: unknown; body: (ids: string[]) => unknown; pks: string[] }>;
}

const idBody = (field: string) => (ids: string[]) => ({ [field]: ids });

const ROUTES: LinkRoute[] = [
  {
    name: '/roles/{id}/members',
    field: 'users',
    async setup() {
      const [r, a, b] = [await createRole(), await createUser(), await createUser()];
      return {
        path: `/roles/${r}/members`,
        linked: a,
        fresh: b,
        unknown: UNKNOWN_ID,
        body: idBody('users'),
        pks: [`ROLE#${r}`, `USER#${a}`, `USER#${b}`],
      };
    },
  },
  {
    name: '/users/{id}/roles',
    field: 'roles',
    async setup() {
      const [u, a, b] = [await createUser(), await createRole(), await createRole()];
      return {
        path: `/users/${u}/roles`,
        linked: a,
        fresh: b,
        unknown: UNKNOWN_ID,
        body: idBody('roles'),
        pks: [`USER#${u}`, `ROLE#${a}`, `ROLE#${b}`],
      };
    },
  },
  ...(['roles', 'users'] as const).map(
    (owner): LinkRoute => ({
      name: `/${owner}/{id}/permissions`,
      field: 'permissions',
      async setup() {
        const id = owner === 'roles' ? await createRole() : await createUser();
        const api = await fx.createResource(['a', 'b']);
        const body = (scopes: string[]) => ({ permissions: [{ resource_id: api.id, scopes: scopes.filter((s) => s !== UNKNOWN_ID) }] });
        return {
          path: `/${owner}/${id}/permissions`,
          linked: api.scope('a'),
          fresh: api.scope('b'),
          unknown: UNKNOWN_ID,
          body: (scopes: string[]) =>
            scopes.includes(UNKNOWN_ID)
              ? { permissions: [...body(scopes).permissions, { resource_id: UNKNOWN_ID, scopes: [UNKNOWN_ID] }] }
              : scopes.length > 50
                ? { permissions: [{ resource_id: api.id, scopes }] }
                : body(scopes),
          pks: [`${owner === 'roles' ? 'ROLE' : 'USER'}#${id}`, keys.resourcePartition(api.id)],
        };
      },
    }),
  ),
  {
    name: '/groups/{id}/members',
    field: 'users',
    async setup() {
      const [g, a, b] = [await createGroup(), await createUser(), await createUser()];
      return {
        path: `/groups/${g}/members`,
        linked: a,
        fresh: b,
        unknown: UNKNOWN_ID,
        body: idBody('users'),
        pks: [`GROUP#${g}`, `USER#${a}`, `USER#${b}`],
      };
    },
  },
  {
    name: '/users/{id}/groups',
    field: 'groups',
    async setup() {
      const [u, a, b] = [await createUser(), await createGroup(), await createGroup()];
      return {
        path: `/users/${u}/groups`,
        linked: a,
        fresh: b,
        unknown: UNKNOWN_ID,
        body: idBody('groups'),
        pks: [`USER#${u}`, `GROUP#${a}`, `GROUP#${b}`],
      };
    },
  },
  {
    name: '/groups/{id}/roles',
    field: 'roles',
    async setup() {
      const [g, a, b] = [await createGroup(), await createRole(), await createRole()];
      return {
        path: `/groups/${g}/roles`,
        linked: a,
        fresh: b,
        unknown: UNKNOWN_ID,
        body: idBody('roles'),
        pks: [`GROUP#${g}`, `ROLE#${a}`, `ROLE#${b}`],
      };
    },
  },
  {
    name: '/groups/{id}/groups',
    field: 'groups',
    async setup() {
      const [g, a, b] = [await createGroup(), await createGroup(), await createGroup()];
      return {
        path: `/groups/${g}/groups`,
        linked: a,
        fresh: b,
        unknown: UNKNOWN_ID,
        body: idBody('groups'),
        pks: [`GROUP#${g}`, `GROUP#${a}`, `GROUP#${b}`],
      };
    },
  },
];

describe('docs/contract.md §6 link rules on every link route', () => {
  for (const route of ROUTES) {
    it(`${route.name}: 51 ids 400; unknown 404; existing 409; missing 404; nothing changes; 20 racing adds → one 204`, async () => {
      const { path, linked, fresh, body, pks } = await route.setup();
      expect((await fx.call('POST', path, { body: body([linked]) })).status).toBe(204);
      const snapshot = async () => Promise.all(pks.map(partition));
      const before = await snapshot();

      const many = Array.from({ length: 51 }, () => randomUUID());
      for (const method of ['POST', 'DELETE']) {
        const tooMany = await fx.call(method, path, { body: body(many) });
        expect(tooMany.status, `${method} 51`).toBe(400);
        expect(tooMany.body.message).toContain(`body.${route.field}`);
      }
      expect((await fx.call('POST', path, { body: body([fresh, UNKNOWN_ID]) })).status, 'unknown').toBe(404);
      expect((await fx.call('POST', path, { body: body([fresh, linked]) })).status, 'existing').toBe(409);
      expect((await fx.call('DELETE', path, { body: body([linked, fresh]) })).status, 'missing').toBe(404);
      expect(await snapshot()).toEqual(before);

      const race = await Promise.all(Array.from({ length: 20 }, () => fx.call('POST', path, { body: body([fresh]) })));
      const statuses = race.map((r) => r.status);
      expect(statuses.filter((s) => s === 204)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      // Both links are there once: removing both is one 204, and then both are missing.
      expect((await fx.call('DELETE', path, { body: body([linked, fresh]) })).status).toBe(204);
      expect((await fx.call('DELETE', path, { body: body([fresh]) })).status).toBe(404);
    });
  }
});
