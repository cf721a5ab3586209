import { beforeAll, describe, expect, it } from 'vitest';
import { effectiveAccess, effectiveGroups, type RbacUser } from '#shared/rbac/effective-permissions.ts';
import { createRuntime, type Runtime } from '#shared/runtime.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import { cachedRbacRecordReads, rbacRecordReads } from '#shared/store/token-path/rbac-records.ts';
import { createTestTable, recordingClient, type TestTable } from '../support/service/dynamodb.ts';
import { testRuntime } from '../support/service/test-runtime.ts';
import { putChain, putGroup, putRole, setUserRbac } from '../support/store/rbac-items.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * The effective-permissions resolver (shared/rbac/effective-permissions.ts) against DynamoDB
 * Local, on records with the pinned shapes: the union and its `sources`, the tenant and missing-
 * record rules, and the read bound (≤ 3 BatchGetItem cold after the user, 0 warm), counted on
 * every command the store sends.
 */
const OTHER_TENANT = '019b0000-0000-7000-8000-0000000000f1';
const R1 = '019b0000-0000-7000-8000-00000000a001';
const R2 = '019b0000-0000-7000-8000-00000000a002';
const S = (n: number) => `019b0000-0000-7000-8000-0000000b${String(n).padStart(4, '0')}`;

let table: TestTable;
let setup: Runtime;

beforeAll(async () => {
  table = await createTestTable('rbacresolver');
  setup = testRuntime(table);
});

const t = () => ({ db: setup.db, tableName: setup.config.tableName });

/** A user whose stored item carries these mirrors, read back as the token path reads it. */
async function userWith(o: Parameters<typeof setUserRbac>[2]): Promise<RbacUser> {
  const user = await putUser(setup);
  await setUserRbac(t(), user.id, o);
  return { ...user, token_grants: o.grants ?? {}, role_ids: ids(o.roles), group_ids: ids(o.groups) };
}
const ids = (xs: readonly string[] = []) => Object.fromEntries(xs.map((x) => [x, true as const]));

function counted() {
  const { db, commands } = recordingClient(table);
  return { reads: rbacRecordReads(db, table.tableName, () => new Date()), commands };
}

const toObject = (access: Awaited<ReturnType<typeof effectiveAccess>>) =>
  Object.fromEntries([...access.permissions].map(([r, scopes]) => [r, Object.fromEntries(scopes)]));

describe('effective permissions: the union and its sources', () => {
  it('direct ∪ direct roles ∪ roles of direct groups ∪ roles of their ancestors, each scope with every source, in order', async () => {
    const roleA = await putRole(t(), { grants: { [R1]: { [S(1)]: true, [S(2)]: true } } });
    const roleB = await putRole(t(), { grants: { [R1]: { [S(2)]: true }, [R2]: { [S(3)]: true } } });
    const roleC = await putRole(t(), { grants: { [R1]: { [S(1)]: true } } });
    // grand-parent (roleC) > parent (roleB) > child (no role); the user is in the child.
    const [grand, parent, child] = await putChain(t(), 3, (level) => [[roleC], [roleB], []][level]!);
    const user = await userWith({ grants: { [R1]: { [S(1)]: true } }, roles: [roleA], groups: [child!] });

    const c = counted();
    const access = await effectiveAccess(user, c.reads);
    expect(toObject(access)).toEqual({
      [R1]: {
        [S(1)]: [{ type: 'direct' }, { type: 'role', id: roleA }, { type: 'group', id: grand }],
        [S(2)]: [
          { type: 'role', id: roleA },
          { type: 'group', id: parent },
        ],
      },
      [R2]: { [S(3)]: [{ type: 'group', id: parent }] },
    });
    expect(access.groups.map((g) => [g.group.id, g.direct])).toEqual([
      [child, true],
      [grand, false],
      [parent, false],
    ]);
    // Direct role + direct group; ancestors + (no) roles of the child; the ancestors' roles.
    expect(c.commands).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'BatchGetItemCommand']);
  });

  it('a group both direct and inherited is listed once, direct, and its roles count once', async () => {
    const role = await putRole(t(), { grants: { [R1]: { [S(4)]: true } } });
    const [top, bottom] = await putChain(t(), 2, (level) => (level === 0 ? [role] : []));
    const user = await userWith({ groups: [bottom!, top!] });
    const access = await effectiveAccess(user, counted().reads);
    expect(access.groups.map((g) => [g.group.id, g.direct])).toEqual([
      [top, true],
      [bottom, true],
    ]);
    expect(toObject(access)).toEqual({ [R1]: { [S(4)]: [{ type: 'group', id: top }] } });
    expect((await effectiveGroups(user, counted().reads)).map((g) => [g.group.id, g.direct])).toEqual([
      [top, true],
      [bottom, true],
    ]);
  });

  it('a role or group of another tenant, or one that no longer exists, grants nothing (a forged or stale mirror is not trusted)', async () => {
    const foreignRole = await putRole(t(), { tenantId: OTHER_TENANT, grants: { [R1]: { [S(5)]: true } } });
    const roleOfForeignGroup = await putRole(t(), { grants: { [R1]: { [S(6)]: true } } });
    const foreignGroup = await putGroup(t(), { tenantId: OTHER_TENANT, roles: [roleOfForeignGroup] });
    // An own group naming a foreign role and a foreign ancestor.
    const foreignAncestorRole = await putRole(t(), { grants: { [R1]: { [S(7)]: true } } });
    const foreignAncestor = await putGroup(t(), { tenantId: OTHER_TENANT, roles: [foreignAncestorRole] });
    const own = await putGroup(t(), { roles: [foreignRole, uuidv7()], ancestors: [foreignAncestor, uuidv7()] });
    const user = await userWith({ roles: [foreignRole, uuidv7()], groups: [foreignGroup, own, uuidv7()] });
    const access = await effectiveAccess(user, counted().reads);
    expect(toObject(access)).toEqual({});
    expect(access.groups.map((g) => [g.group.id, g.direct])).toEqual([[own, true]]);
  });

  it('a user without mirrors (made before RBAC) holds nothing and costs no read', async () => {
    const user = await putUser(setup);
    const c = counted();
    expect(toObject(await effectiveAccess(user, c.reads))).toEqual({});
    expect(c.commands).toEqual([]);
  });
});

describe('the read bound: 5 groups nested 10 deep, ≤ 3 BatchGetItem cold, 0 warm', () => {
  it('cold: exactly 3 BatchGetItem whatever the depth; warm (1 s caches): none; past the TTL: 3 again', async () => {
    // 5 chains of 10 groups, each group holding its own role (60 roles with the 2 direct ones, 50 groups).
    const scopeOf = new Map<string, string>();
    const newRole = async () => {
      const scope = S(100 + scopeOf.size);
      const id = await putRole(t(), { grants: { [R1]: { [scope]: true } } });
      scopeOf.set(id, scope);
      return id;
    };
    const chains: string[][] = [];
    for (let i = 0; i < 5; i++) {
      const roles: string[] = [];
      for (let l = 0; l < 10; l++) roles.push(await newRole());
      chains.push(await putChain(t(), 10, (level) => [roles[level]!]));
    }
    const directRoles = [await newRole(), await newRole()];
    const user = await userWith({ roles: directRoles, groups: chains.map((c) => c.at(-1)!) });

    const { db, commands } = recordingClient(table);
    let clock = Date.now();
    const container = createRuntime(setup.config, { db, now: () => new Date(clock) });
    const reads = cachedRbacRecordReads(container);

    const access = await effectiveAccess(user, reads);
    expect(commands).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'BatchGetItemCommand']);
    expect(new Set(access.permissions.get(R1)!.keys())).toEqual(new Set(scopeOf.values()));
    expect(access.groups).toHaveLength(50);
    expect(access.groups.filter((g) => g.direct)).toHaveLength(5);

    commands.length = 0;
    expect(toObject(await effectiveAccess(user, reads))).toEqual(toObject(access));
    expect(commands).toEqual([]);

    clock += setup.config.recordCacheTtlMs + 1;
    await effectiveAccess(user, reads);
    expect(commands).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'BatchGetItemCommand']);
  });
});
