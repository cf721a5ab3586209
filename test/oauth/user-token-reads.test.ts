import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import { createRuntime, type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { resourcesRepository } from '#shared/store/resources/resources-repository.ts';
import { handler as introspectHandler } from '../../functions/oauth/introspect.ts';
import { handler as userinfoHandler } from '../../functions/oauth/userinfo.ts';
import { userToken } from '../support/oauth/user-tokens.ts';
import { createTestTable, recordingClient, type TestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { deployedRuntime } from '../support/service/test-runtime.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * A /userinfo request makes 1 DynamoDB read at most, and the user-token check is folded into
 * introspection's one cold read (docs/tokens.md "When a user token stops working"). Each test starts a fresh runtime (a cold Lambda
 * container) on a table a deploy has filled, and counts every DynamoDB command it sends.
 */
const ACTOR = '019b0000-0000-7000-8000-0000000000aa';
const SECRET = 'user-token-reads-secret-0123456789abcdefghijklmn';
const ENV = { LOCAL_MASTER_KEY_FILE: join(mkdtempSync(join(tmpdir(), 'utreads-')), 'master.key') };

let table: TestTable;
let setup: Runtime;
let clientId: string;
let user: UserRecord;
let resourceAudience: string;

beforeAll(async () => {
  table = await createTestTable('utreads');
  // What a deployed stage has before its first token: the keys made by the rotation run, bootstrap.
  setup = await deployedRuntime(table, ENV);
  const { db, config, now, secretBox } = setup;
  clientId = (await clientsRepository(db, config.tableName, now, secretBox).create(
    { tenant_id: DEFAULT_TENANT_ID, client_name: 'rp', client_secret: SECRET },
    ACTOR,
  ))!.id;
  resourceAudience = `https://reads-${clientId}.example.com/`;
  await resourcesRepository(db, config.tableName, now, secretBox).create(
    { tenant_id: DEFAULT_TENANT_ID, resource_type: 'api', resource_name: 'api', resource_metadata: { identifier_url: resourceAudience } },
    ACTOR,
    [],
  );
  user = await putUser(setup, { email: 'reads@example.com', email_verified: true });
});

function coldContainer() {
  const { db, commands } = recordingClient(table);
  // A second ahead of the test's signer: a token signed just now has a whole-second `nbf` that
  // must never lie ahead of this clock (a second boundary crossed in between would make it so).
  let clock = Date.now() + 1_000;
  const runtime = createRuntime(setup.config, { db, now: () => new Date(clock) });
  const send = async (handler: typeof userinfoHandler, resource: string, headers: Record<string, string>, body?: string) => {
    const res = await runWithRuntime(runtime, () =>
      handler(restEvent({ method: body === undefined ? 'GET' : 'POST', resource, headers, ...(body ? { body } : {}) }), lambdaContext),
    );
    return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
  };
  const userinfo = (token: string) => send(userinfoHandler, '/userinfo', { Authorization: `Bearer ${token}` });
  const introspect = (token: string) =>
    send(
      introspectHandler,
      '/introspect',
      {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${clientId}:${SECRET}`).toString('base64')}`,
      },
      new URLSearchParams({ token }).toString(),
    );
  return { commands, userinfo, introspect, advance: (ms: number) => (clock += ms) };
}

const COLD = ['BatchGetItemCommand', 'QueryCommand'];

const tokenOf = (o: { aud?: string } = {}) => userToken(setup, user, { clientId, scope: 'openid email', ...o });

describe('DynamoDB reads of /userinfo', () => {
  // A cold container: ONE BatchGetItem (keys, client, user, family, the revocation log's marker),
  // then one Query of the revocation log it follows (docs/tokens.md "Revocation checks and their cost").
  it('a cold container answers with ONE BatchGetItem (keys, client, user, family) and the revocation log; the same token again reads nothing', async () => {
    const token = await tokenOf();
    const c = coldContainer();
    expect(await c.userinfo(token)).toEqual({ status: 200, body: { sub: user.id, email: 'reads@example.com', email_verified: true } });
    expect(c.commands).toEqual(COLD);
    for (let i = 0; i < 5; i++) expect((await c.userinfo(token)).status).toBe(200);
    expect(c.commands).toEqual(COLD);
  });

  it('warm: a new token of a cached user costs one read (its login family; its revocation check is in memory); past the 1 s caches, one read and the log again', async () => {
    const c = coldContainer();
    await c.userinfo(await tokenOf());
    expect((await c.userinfo(await tokenOf())).status).toBe(200);
    expect(c.commands).toEqual([...COLD, 'BatchGetItemCommand']);
    c.advance(1_500);
    expect((await c.userinfo(await tokenOf())).status).toBe(200);
    expect(c.commands).toEqual([...COLD, 'BatchGetItemCommand', ...COLD]);
  });

  it('concurrent requests in the read-ahead window: ONE of them re-reads the user and family, the others neither read nor wait for it', async () => {
    const token = await tokenOf();
    const c = coldContainer();
    expect((await c.userinfo(token)).status).toBe(200);
    c.commands.length = 0;
    // 800 ms into the 1 s record TTL: inside its last quarter, where a request reads ahead.
    c.advance(800);
    // Twenty at once, as a container serving concurrent callers sees them (the local server):
    // without the mark each would make its own BatchGetItem in this window and wait for it.
    const answers = await Promise.all(Array.from({ length: 20 }, () => c.userinfo(token)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(c.commands.filter((x) => x === 'BatchGetItemCommand')).toEqual(['BatchGetItemCommand']);
    // The re-read replaced the entries: the next window re-reads once again.
    c.advance(800);
    await Promise.all(Array.from({ length: 20 }, () => c.userinfo(token)));
    expect(c.commands.filter((x) => x === 'BatchGetItemCommand')).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
  });

  it('a token for a Resource: its identifier marker is read in the same one call', async () => {
    const token = await tokenOf({ aud: resourceAudience });
    const c = coldContainer();
    expect((await c.userinfo(token)).status).toBe(200);
    expect(c.commands).toEqual(COLD);
  });

  it('an unknown user is 401 from that one read too', async () => {
    const token = await userToken(
      setup,
      { id: '019b0000-0000-7000-8000-00000000beef', tenant_id: DEFAULT_TENANT_ID },
      { clientId, scope: 'openid' },
    );
    const c = coldContainer();
    expect((await c.userinfo(token)).status).toBe(401);
    expect(c.commands).toEqual(COLD);
  });
});

describe('DynamoDB reads of introspecting a user token', () => {
  it('a cold container folds the user and family into its ONE BatchGetItem (and reads the revocation log once)', async () => {
    const token = await tokenOf();
    const c = coldContainer();
    expect(await c.introspect(token)).toEqual({
      status: 200,
      body: expect.objectContaining({ active: true, sub: user.id, username: 'reads@example.com' }),
    });
    expect(c.commands).toEqual(COLD);
    expect((await c.introspect(token)).status).toBe(200);
    expect(c.commands).toEqual(COLD);
  });
});
