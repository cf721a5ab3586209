import { beforeAll, describe, expect, it } from 'vitest';
import { issueUserTokens } from '#shared/oauth/user-tokens/issue-user-tokens.ts';
import { TENANT_ADMIN_SCOPES } from '#shared/rbac/tenant-admin-scopes.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import type { Runtime } from '#shared/runtime.ts';
import { clientLinksRepository } from '#shared/store/clients/client-links-repository.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { tenantAdminsRepository } from '#shared/store/tenants/tenant-admins-repository.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';
import { deployedRuntime } from '../support/service/test-runtime.ts';
import { refreshContainer } from '../support/store/refresh-container.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * A tenant admin's management-API token costs no DynamoDB call more than any user's
 * (docs/tenants.md "Tenant admins"): the rule reads the `tenant_admin` mirror on the user item the
 * grant reads anyway. Counted on the real /token handler (the refresh grant) in a container whose
 * client, keys and the management API are warm, on every command it sends.
 */
const ACTOR = '019b0000-0000-7000-8000-0000000000dd';
const SECRET = 'tenant-admin-reads-secret-0123456789abcdefghijklmnop';

let table: TestTable;
let setup: Runtime;
let clientId: string;

beforeAll(async () => {
  table = await createTestTable('adminreads');
  setup = await deployedRuntime(table);
  const { db, config, now, secretBox } = setup;
  clientId = (await clientsRepository(db, config.tableName, now, secretBox).create(
    {
      tenant_id: DEFAULT_TENANT_ID,
      client_name: 'admin reads',
      client_secret: SECRET,
      client_metadata: { grant_types: ['refresh_token'] },
    },
    ACTOR,
  ))!.id;
  const api = await oauthDeps(setup).findResource(DEFAULT_TENANT_ID, config.managementAudience);
  await clientLinksRepository(db, config.tableName, now).authorize(clientId, [api!.id], ACTOR);
});

async function loginOf(user: UserRecord): Promise<string> {
  const deps = oauthDeps(setup);
  const tokens = await issueUserTokens(
    {
      client: (await deps.findClient(clientId))!,
      user,
      request: { scope: `offline_access ${TENANT_ADMIN_SCOPES.join(' ')}`, audience: setup.config.managementAudience },
      authTime: 1,
      authorizedAt: new Date().toISOString(),
    },
    deps,
  );
  return tokens.refresh_token!;
}

const scopesOf = (jwt: string) =>
  String((JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { scope?: string }).scope ?? '')
    .split(' ')
    .sort();

describe('DynamoDB calls of a tenant admin token', () => {
  it('the same calls as an ordinary user: one BatchGetItem (refresh token + user), then the rotation', async () => {
    const [admin, plain] = [await putUser(setup), await putUser(setup)];
    await tenantAdminsRepository(setup.db, setup.config.tableName, setup.now).add(DEFAULT_TENANT_ID, [admin.id], ACTOR);
    const [adminLogin, plainLogin, warmLogin] = [
      await loginOf({ ...admin, tenant_admin: true }),
      await loginOf(plain),
      await loginOf(await putUser(setup)),
    ];
    const frozen = new Date();
    const c = refreshContainer(table, setup.config, { id: clientId, secret: SECRET }, () => frozen);
    expect((await c.refresh(warmLogin)).status).toBe(200);

    c.commands.length = 0;
    const ofPlain = await c.refresh(plainLogin);
    expect(ofPlain.status).toBe(200);
    expect(scopesOf(ofPlain.body.access_token!)).toEqual(['offline_access']);
    const plainCommands = [...c.commands];

    c.commands.length = 0;
    const ofAdmin = await c.refresh(adminLogin);
    expect(ofAdmin.status).toBe(200);
    expect(scopesOf(ofAdmin.body.access_token!)).toEqual(['offline_access', ...TENANT_ADMIN_SCOPES].sort());
    expect(c.commands).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand']);
    expect(c.commands).toEqual(plainCommands);
  });
});
