import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '#shared/bootstrap/bootstrap.ts';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { rotateKeys } from '#shared/keys/rotate-keys.ts';
import { issueUserTokens } from '#shared/oauth/user-tokens/issue-user-tokens.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import type { Runtime } from '#shared/runtime.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';
import { testRuntime } from '../support/service/test-runtime.ts';
import { refreshContainer } from '../support/store/refresh-container.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * A warm refresh costs at most one DynamoDB read and one write. A container
 * with its caches warm (client, keys) but never having seen the user: the refresh token and its
 * user come in ONE BatchGetItem (the token's value names the user), the rotation is ONE
 * TransactWriteItems. Every DynamoDB command the container sends is recorded.
 */
const ACTOR = '019b0000-0000-7000-8000-0000000000bb';
const SECRET = 'refresh-read-secret-0123456789abcdefghijklmnopqrstuv';

let table: TestTable;
let setup: Runtime;
let clientId: string;

const PASSWORD = 'counted-Password-7-Lighthouse';
/** The grant checks a hash with the parameters stored in it: a cheap one keeps this file fast. */
const CHEAP_HASH = { memoryKiB: 64, passes: 1, parallelism: 1 };

const READ_COMMANDS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand', 'TransactGetItemsCommand']);

beforeAll(async () => {
  table = await createTestTable('refreshreads');
  setup = testRuntime(table);
  await rotateKeys({ config: setup.config, db: setup.db, now: setup.now });
  await bootstrap({
    db: setup.db,
    tableName: setup.config.tableName,
    secretBox: setup.secretBox,
    now: setup.now,
    managementAudience: setup.config.managementAudience,
  });
  const client = await clientsRepository(setup.db, setup.config.tableName, setup.now, setup.secretBox).create(
    {
      tenant_id: DEFAULT_TENANT_ID,
      client_name: 'refresh reads',
      client_secret: SECRET,
      client_metadata: { grant_types: ['refresh_token', 'password'] },
    },
    ACTOR,
  );
  clientId = client.id;
});

/**
 * A container whose DynamoDB commands are recorded, its clock stopped: its 1 s caches hold between
 * the warm-up and the counted requests however loaded the machine is (under the full suite the
 * steps in between can take over a second, and the counts would then include re-reads).
 */
function container() {
  const frozen = new Date();
  return refreshContainer(table, setup.config, { id: clientId, secret: SECRET }, () => frozen);
}

async function loginOf(user: UserRecord, scope: string): Promise<string> {
  const deps = oauthDeps(setup);
  const tokens = await issueUserTokens(
    { client: (await deps.findClient(clientId))!, user, request: { scope }, authTime: 1, authorizedAt: new Date().toISOString() },
    deps,
  );
  return tokens.refresh_token!;
}

describe('DynamoDB calls of a refresh and of a password login', () => {
  for (const scope of ['offline_access', 'openid profile offline_access']) {
    it(`${scope}: warm, a user never seen: ONE BatchGetItem (token + user) and ONE TransactWriteItems`, async () => {
      const c = container();
      // Warm the container (client, signing keys) with another user's refresh.
      expect((await c.refresh(await loginOf(await putUser(setup), scope))).status).toBe(200);
      const token = await loginOf(await putUser(setup, { name: 'Counted' }), scope);
      c.commands.length = 0;
      const res = await c.refresh(token);
      expect(res.status).toBe(200);
      expect(res.body.refresh_token).toEqual(expect.any(String));
      expect(c.commands).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand']);

      // The same user again within the record TTL (1 s): the token alone, one GetItem.
      c.commands.length = 0;
      expect((await c.refresh(res.body.refresh_token!)).status).toBe(200);
      expect(c.commands).toEqual(['GetItemCommand', 'TransactWriteItemsCommand']);
    });
  }

  it('past the record TTL: every refresh makes at most ONE read call and ONE write call, cold container included', async () => {
    // A clock this test moves: three refreshes per 1 s TTL, so the client, the user and the
    // signing-key states each expire between requests (a stale record is read again in the refresh
    // token's own BatchGetItem, never in a call of its own).
    let at = Date.now();
    const c = refreshContainer(table, setup.config, { id: clientId, secret: SECRET }, () => new Date(at));
    let token = await loginOf(await putUser(setup), 'openid offline_access');
    const calls: string[][] = [];
    for (let i = 0; i < 12; i++) {
      c.commands.length = 0;
      const res = await c.refresh(token);
      expect(res.status, `request ${i}`).toBe(200);
      token = res.body.refresh_token!;
      calls.push([...c.commands]);
      at += 400;
    }
    const reads = calls.map((cmds) => cmds.filter((x) => READ_COMMANDS.has(x)).length);
    const writes = calls.map((cmds) => cmds.filter((x) => !READ_COMMANDS.has(x)).length);
    expect(Math.max(...reads), JSON.stringify(calls)).toBe(1);
    expect(Math.max(...writes), JSON.stringify(calls)).toBe(1);
    // The cold request read the client, the key states, the token and its user in that one call.
    expect(calls[0]).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand']);
  });

  it('a record expiring DURING a request costs it no second read call: the one read takes what would expire before the request ends', async () => {
    // A clock that moves on every time it is read: a request spans tens of milliseconds of it, so
    // the 1 s caches (client, key states, user) run out inside requests, at every point of them,
    // not only between them (under load, about one refresh in 500 would otherwise make two reads).
    let at = Date.now();
    let reads = 0;
    const c = refreshContainer(table, setup.config, { id: clientId, secret: SECRET }, () => {
      reads++;
      return new Date((at += 4));
    });
    let token = await loginOf(await putUser(setup), 'openid offline_access');
    const calls: string[][] = [];
    const spans: number[] = [];
    for (let i = 0; i < 80; i++) {
      c.commands.length = 0;
      const start = at;
      const res = await c.refresh(token);
      expect(res.status, `request ${i}`).toBe(200);
      token = res.body.refresh_token!;
      calls.push([...c.commands]);
      spans.push(at - start);
    }
    const most = Math.max(...calls.map((cmds) => cmds.filter((x) => READ_COMMANDS.has(x)).length));
    expect(
      most,
      `${JSON.stringify(calls.filter((cmds) => cmds.filter((x) => READ_COMMANDS.has(x)).length > 1))} spans ${Math.min(...spans)}–${Math.max(...spans)} ms, ${reads} clock reads`,
    ).toBe(1);
  });

  it('a made-up token costs one read and writes nothing', async () => {
    const c = container();
    expect((await c.refresh(await loginOf(await putUser(setup), 'offline_access'))).status).toBe(200);
    c.commands.length = 0;
    expect((await c.refresh('A'.repeat(64))).body.error).toBe('invalid_grant');
    expect(c.commands).toEqual(['BatchGetItemCommand']);
  });

  it('a password login: ONE GetItem of the login marker, ONE counting UpdateItem (the user comes back), ONE write on success; an unknown login does the same work', async () => {
    const user = await putUser(setup, {
      username: `counted${Date.now()}`,
      phone_number: `+1555${String(Date.now()).slice(-7)}`,
      password_hash: await hashPassword(PASSWORD, CHEAP_HASH),
    });
    const c = container();
    const login = (username: string, password = PASSWORD) => c.token({ grant_type: 'password', username, password });
    expect((await login(user.email!)).status).toBe(200); // warm: client, keys
    for (const username of [user.email!.toUpperCase(), user.username!, user.phone_number!]) {
      c.commands.length = 0;
      expect((await login(username)).status, username).toBe(200);
      // The login's write carries its login.succeeded event: one transaction of two items, no call
      // more (docs/events.md "Recording").
      expect(c.commands, username).toEqual(['GetItemCommand', 'UpdateItemCommand', 'TransactWriteItemsCommand']);
    }
    // Before the answer, a wrong password and an unknown login (of each form) make the same calls
    // as the success did (docs/contract.md §7.3: the answer time does not tell whether a login exists).
    for (const [username, password] of [
      [user.username!, 'wrong-password'],
      ['nobody-at-all@example.com', PASSWORD],
      ['nobody-at-all', PASSWORD],
      ['+15550000000', PASSWORD],
    ] as const) {
      c.commands.length = 0;
      expect((await login(username, password)).body.error, username).toBe('invalid_grant');
      // After the answer is known, its login.failed event: the one write a failure makes of its own.
      expect(c.commands, username).toEqual(['GetItemCommand', 'UpdateItemCommand', 'PutItemCommand']);
    }
  });
});
