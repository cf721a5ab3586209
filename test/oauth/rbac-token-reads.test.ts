import { beforeAll, describe, expect, it } from 'vitest';
import { issueUserTokens } from '#shared/oauth/user-tokens/issue-user-tokens.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import type { Runtime } from '#shared/runtime.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { resourcesRepository } from '#shared/store/resources/resources-repository.ts';
import { scopesRepository } from '#shared/store/resources/scopes-repository.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';
import { deployedRuntime } from '../support/service/test-runtime.ts';
import { putChain, putRole, setUserRbac } from '../support/store/rbac-items.ts';
import { refreshContainer } from '../support/store/refresh-container.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * A token for a user in 5 groups nested 10 deep reads at most 3 BatchGetItem cold, 0 warm
 * (docs/rbac.md "How it is computed"). Counted on a real /token handler (the refresh grant: its token and user come in
 * one BatchGetItem) in a container whose client, keys and Resource are warm, on every DynamoDB
 * command it sends: after the user's read, the resolver's three batches, then the rotation.
 */
const ACTOR = '019b0000-0000-7000-8000-0000000000dd';
const SECRET = 'rbac-token-reads-secret-0123456789abcdefghijklmnop';

let table: TestTable;
let setup: Runtime;
let clientId: string;
let audience: string;
let scopeIds: string[];
let resourceId: string;

beforeAll(async () => {
  table = await createTestTable('rbacreads');
  setup = await deployedRuntime(table);
  const { db, config, now, secretBox } = setup;
  clientId = (await clientsRepository(db, config.tableName, now, secretBox).create(
    { tenant_id: DEFAULT_TENANT_ID, client_name: 'rbac reads', client_secret: SECRET, client_metadata: { grant_types: ['refresh_token'] } },
    ACTOR,
  ))!.id;
  audience = `https://rbac-reads-${clientId}.example.com/`;
  const resource = await resourcesRepository(db, config.tableName, now, secretBox).create(
    {
      tenant_id: DEFAULT_TENANT_ID,
      resource_type: 'api',
      resource_name: 'rbac',
      resource_metadata: { identifier_url: audience, rbac_enabled: true },
    },
    ACTOR,
    Array.from({ length: 40 }, (_, i) => ({ scope_name: `s${i}` })),
  );
  resourceId = resource.id;
  const scopes = await scopesRepository(db, config.tableName, now).list(resource.id);
  scopeIds = Array.from({ length: 40 }, (_, i) => scopes.find((s) => s.scope_name === `s${i}`)!.id);
});

const set = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, true]));
const t = () => ({ db: setup.db, tableName: setup.config.tableName });

/** A user in 5 groups, each the bottom of a chain of 10, every group with its own role (one scope each), and 5 direct roles. */
async function deepUser(): Promise<UserRecord> {
  let next = 0;
  const role = () => putRole(t(), { grants: { [resourceId]: { [scopeIds[next++ % scopeIds.length]!]: true } } });
  const bottoms: string[] = [];
  for (let c = 0; c < 5; c++) {
    const roles: string[] = [];
    for (let l = 0; l < 10; l++) roles.push(await role());
    bottoms.push((await putChain(t(), 10, (level) => [roles[level]!])).at(-1)!);
  }
  const direct = [await role(), await role(), await role(), await role(), await role()];
  const user = await putUser(setup);
  await setUserRbac(t(), user.id, { roles: direct, groups: bottoms });
  return { ...user, role_ids: set(direct), group_ids: set(bottoms) } as UserRecord;
}

/** A container with a stopped clock: the 1 s caches hold between the warm-up and the counted requests however loaded the machine is. */
function container() {
  const frozen = new Date();
  return refreshContainer(table, setup.config, { id: clientId, secret: SECRET }, () => frozen);
}

async function loginOf(user: UserRecord, scope: string): Promise<string> {
  const deps = oauthDeps(setup);
  const tokens = await issueUserTokens(
    { client: (await deps.findClient(clientId))!, user, request: { scope, audience }, authTime: 1, authorizedAt: new Date().toISOString() },
    deps,
  );
  return tokens.refresh_token!;
}

const payloadOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('DynamoDB reads of a token for an RBAC Resource, the user in 5 groups nested 10 deep', () => {
  it('cold for the user: its read, then 3 BatchGetItem (roles + groups, ancestors + their roles, ancestors roles); warm: none', async () => {
    const scope = `offline_access ${Array.from({ length: 40 }, (_, i) => `s${i}`).join(' ')}`;
    const user = await deepUser();
    const first = await loginOf(user, scope);
    const warmup = await loginOf(await putUser(setup), scope);
    const c = container();
    // Warm the container (client, keys, the Resource) with a user holding nothing.
    expect((await c.refresh(warmup)).status).toBe(200);
    c.commands.length = 0;
    const res = await c.refresh(first);
    expect(res.status).toBe(200);
    // 55 roles hold all 40 scopes between them: every one is in the token.
    expect((payloadOf(res.body.access_token!).permissions as string[]).length).toBe(40);
    expect(c.commands).toEqual([
      'BatchGetItemCommand', // the refresh token + its user
      'BatchGetItemCommand', // 5 direct roles + 5 direct groups
      'BatchGetItemCommand', // 45 ancestor groups + the 5 direct groups' roles
      'BatchGetItemCommand', // the 45 ancestors' roles
      'TransactWriteItemsCommand', // the rotation
    ]);

    // Warm: the same user within the record TTL reads no role or group at all.
    c.commands.length = 0;
    const again = await c.refresh(res.body.refresh_token!);
    expect(again.status).toBe(200);
    expect(payloadOf(again.body.access_token!).permissions).toEqual(payloadOf(res.body.access_token!).permissions);
    expect(c.commands).toEqual(['GetItemCommand', 'TransactWriteItemsCommand']);
  });
});
