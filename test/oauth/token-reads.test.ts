import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { revocationRef } from '#shared/records/revocation-ref.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { createRuntime, type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { clientLinksRepository } from '#shared/store/clients/client-links-repository.ts';
import { clientPermissionsRepository } from '#shared/store/clients/client-permissions-repository.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { resourcesRepository } from '#shared/store/resources/resources-repository.ts';
import { handler as introspectHandler } from '../../functions/oauth/introspect.ts';
import { handler as tokenHandler } from '../../functions/oauth/token.ts';
import { handler as tokeninfoHandler } from '../../functions/oauth/tokeninfo.ts';
import { createTestTable, recordingClient, type TestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { createTenant } from '../support/service/management-api.ts';
import { deployedRuntime } from '../support/service/test-runtime.ts';

/**
 * A client_credentials token costs at most one DynamoDB read (docs/data-model.md "The token path
 * reads items it can name from the request alone"). Each test starts a
 * fresh runtime (a cold Lambda container: empty caches, no key opened) on a table that a deploy
 * has already filled (bootstrap data, signing keys), and counts every DynamoDB command it sends.
 */
const ACTOR = '019b0000-0000-7000-8000-0000000000aa';
const SECRET = 'cold-read-secret-0123456789abcdefghijklmnopqrstuv';
const ENV = { MULTI_TENANT: 'true', LOCAL_MASTER_KEY_FILE: join(mkdtempSync(join(tmpdir(), 'coldkeys-')), 'master.key') };

let table: TestTable;
let setup: Runtime;
let otherTenant: string;

async function apiFor(tenantId: string, alg: 'ES256' | 'RS256' | 'HS256') {
  const { db, config, now, secretBox } = setup;
  const clients = clientsRepository(db, config.tableName, now, secretBox);
  const resources = resourcesRepository(db, config.tableName, now, secretBox);
  const client = await clients.create({ tenant_id: tenantId, client_name: `cold ${alg}`, client_secret: SECRET }, ACTOR);
  const metadata = {
    identifier_url: `https://${alg.toLowerCase()}-${client.id}.example.com/`,
    signing_algorithm: alg,
    ...(alg === 'HS256' ? { signing_secret: SECRET } : {}),
  };
  const r = await resources.create({ tenant_id: tenantId, resource_type: 'api', resource_name: alg, resource_metadata: metadata }, ACTOR, [
    { scope_name: 'read' },
    { scope_name: 'write' },
  ]);
  await clientLinksRepository(db, config.tableName, now).authorize(client.id, [r.id], ACTOR);
  await clientPermissionsRepository(db, config.tableName, now).grant(
    client.id,
    [{ resource_id: r.id, scopes: Object.keys(r.scope_names) }],
    ACTOR,
  );
  return { clientId: client.id, audience: metadata.identifier_url };
}

/** A cold container whose DynamoDB commands are recorded, with a clock the test moves. */
function coldContainer() {
  const { db, commands } = recordingClient(table);
  let clock = Date.now();
  const runtime = createRuntime(setup.config, { db, now: () => new Date(clock) });
  const token = async (clientId: string, audience: string) => {
    const body = new URLSearchParams({ grant_type: 'client_credentials', audience }).toString();
    const headers = {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${clientId}:${SECRET}`).toString('base64')}`,
    };
    const res = await runWithRuntime(runtime, () =>
      tokenHandler(restEvent({ method: 'POST', resource: '/token', headers, body }), lambdaContext),
    );
    return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
  };
  const introspect = async (path: '/tokeninfo' | '/introspect', tokenValue: string, authorization: string) => {
    const body = new URLSearchParams({ token: tokenValue }).toString();
    const handler = path === '/tokeninfo' ? tokeninfoHandler : introspectHandler;
    const res = await runWithRuntime(runtime, () =>
      handler(
        restEvent({
          method: 'POST',
          resource: path,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: authorization },
          body,
        }),
        lambdaContext,
      ),
    );
    return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
  };
  return { runtime, commands, token, introspect, advance: (ms: number) => (clock += ms) };
}

beforeAll(async () => {
  table = await createTestTable('coldreads');
  // What a deployed stage has before its first token: the keys made by the rotation run, bootstrap.
  setup = await deployedRuntime(table, ENV);
  otherTenant = await createTenant(setup);
});

describe('DynamoDB reads of a client_credentials token', () => {
  for (const alg of ['ES256', 'RS256', 'HS256'] as const) {
    it(`${alg}: a cold container answers the first token with ONE BatchGetItem; warm tokens read nothing`, async () => {
      const api = await apiFor(DEFAULT_TENANT_ID, alg);
      const c = coldContainer();
      const first = await c.token(api.clientId, api.audience);
      expect(first.status).toBe(200);
      expect(first.body.scope).toBe('read write'); // nothing asked for: everything granted (RFC 6749 §5.1: named)
      expect(c.commands).toEqual(['BatchGetItemCommand']);
      if (alg !== 'HS256') {
        const jwks = createLocalJWKSet({ keys: (await c.runtime.keys.publishedKeys()).map((k) => k.jwk) });
        const { payload } = await jwtVerify(first.body.access_token as string, jwks, { audience: api.audience, algorithms: [alg] });
        expect(payload.scope).toBe('read write');
      }
      for (let i = 0; i < 5; i++) expect((await c.token(api.clientId, api.audience)).status).toBe(200);
      expect(c.commands).toEqual(['BatchGetItemCommand']);
    });
  }

  it('when the record cache expires, the next token re-reads client and resource in one call', async () => {
    const api = await apiFor(DEFAULT_TENANT_ID, 'ES256');
    const c = coldContainer();
    await c.token(api.clientId, api.audience);
    c.advance(1_500); // past RECORD_CACHE_TTL_SECONDS (1 s); the key snapshot (5 s) is still fresh
    expect((await c.token(api.clientId, api.audience)).status).toBe(200);
    c.advance(10_000); // now both are stale
    expect((await c.token(api.clientId, api.audience)).status).toBe(200);
    expect(c.commands).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'BatchGetItemCommand']);
  });

  it('in the read-ahead window before the record TTL ends, ONE token re-reads the client and the next ones read nothing (tokens and introspection)', async () => {
    const api = await apiFor(DEFAULT_TENANT_ID, 'ES256');
    const c = coldContainer();
    const issued = (await c.token(api.clientId, api.audience)).body.access_token as string;
    const caller = `Basic ${Buffer.from(`${api.clientId}:${SECRET}`).toString('base64')}`;
    expect((await c.introspect('/introspect', issued, caller)).body.active).toBe(true);
    c.commands.length = 0;
    // 800 ms into the 1 s record TTL: inside the last quarter, where a request reads ahead.
    c.advance(800);
    for (let i = 0; i < 5; i++) expect((await c.token(api.clientId, api.audience)).status).toBe(200);
    expect(c.commands).toEqual(['BatchGetItemCommand']);
    c.commands.length = 0;
    for (let i = 0; i < 5; i++) expect((await c.introspect('/introspect', issued, caller)).body.active).toBe(true);
    // The token read refreshed the client for introspection too: nothing more (a copy kept by
    // `getOrLoad` instead of the one read made every request of the window read again).
    expect(c.commands.filter((x) => x !== 'QueryCommand')).toEqual([]);
  });

  it('concurrent tokens in the read-ahead window: ONE of them re-reads the client and Resource, the others neither read nor wait for it', async () => {
    const api = await apiFor(DEFAULT_TENANT_ID, 'ES256');
    const c = coldContainer();
    expect((await c.token(api.clientId, api.audience)).status).toBe(200);
    c.commands.length = 0;
    c.advance(800);
    // Twenty requests at once, as a container serving concurrent callers sees them (the local
    // server): without the mark, each would make its own BatchGetItem in this window and wait for it.
    const answers = await Promise.all(Array.from({ length: 20 }, () => c.token(api.clientId, api.audience)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(c.commands).toEqual(['BatchGetItemCommand']);
    // The re-read replaced the entries: the next window re-reads once again.
    c.advance(800);
    await Promise.all(Array.from({ length: 20 }, () => c.token(api.clientId, api.audience)));
    expect(c.commands).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
  });

  it('the management API audience is read in the same call', async () => {
    const api = await apiFor(DEFAULT_TENANT_ID, 'ES256');
    const c = coldContainer();
    // Not authorized for the management API: the answer is invalid_target, still from one read.
    const res = await c.token(api.clientId, setup.config.managementAudience);
    expect(res).toEqual({ status: 400, body: expect.objectContaining({ error: 'invalid_target' }) });
    expect(c.commands).toEqual(['BatchGetItemCommand']);
  });

  it('multi-tenant: a client of another tenant costs one more GetItem when cold, then one call again', async () => {
    const api = await apiFor(otherTenant, 'ES256');
    const c = coldContainer();
    expect((await c.token(api.clientId, api.audience)).status).toBe(200);
    // The marker read with the client was the default tenant's guess; the right one is a GetItem.
    expect(c.commands).toEqual(['BatchGetItemCommand', 'GetItemCommand']);
    c.advance(1_500);
    expect((await c.token(api.clientId, api.audience)).status).toBe(200);
    expect(c.commands).toHaveLength(3);
    expect(c.commands[2]).toBe('BatchGetItemCommand');
  });

  it('a warm client asking for another audience costs one read; a made-up audience is remembered only after authentication', async () => {
    const api = await apiFor(DEFAULT_TENANT_ID, 'ES256');
    const second = await apiFor(DEFAULT_TENANT_ID, 'RS256');
    await clientLinksRepository(setup.db, setup.config.tableName, setup.now).authorize(
      api.clientId,
      [
        (await resourcesRepository(setup.db, setup.config.tableName, setup.now, setup.secretBox).findIdByIdentifier(
          DEFAULT_TENANT_ID,
          second.audience,
        ))!,
      ],
      ACTOR,
    );
    const c = coldContainer();
    await c.token(api.clientId, api.audience);
    expect((await c.token(api.clientId, second.audience)).status).toBe(200);
    expect(c.commands).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
    // Unauthenticated requests with made-up audiences: one read each, nothing cached.
    const bogus = async (aud: string) => {
      const body = new URLSearchParams({ grant_type: 'client_credentials', audience: aud }).toString();
      const headers = {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${api.clientId}:wrong`).toString('base64')}`,
      };
      return runWithRuntime(c.runtime, () => tokenHandler(restEvent({ method: 'POST', resource: '/token', headers, body }), lambdaContext));
    };
    expect((await bogus('https://made-up.example.com/')).statusCode).toBe(401);
    expect((await bogus('https://made-up.example.com/')).statusCode).toBe(401);
    expect(c.commands).toHaveLength(4);
    // The same audience from the authenticated client: invalid_target (the read before
    // authentication did not remember the miss, so this first one costs two), then remembered.
    expect((await c.token(api.clientId, 'https://made-up.example.com/')).body.error).toBe('invalid_target');
    expect((await c.token(api.clientId, 'https://made-up.example.com/')).body.error).toBe('invalid_target');
    expect(c.commands).toHaveLength(6);
  });

  it('/tokeninfo and /introspect: a cold container answers with ONE BatchGetItem and one Query of the revocation log (Basic or Bearer caller)', async () => {
    const api = await apiFor(DEFAULT_TENANT_ID, 'ES256');
    const issuer = coldContainer();
    const issued = (await issuer.token(api.clientId, api.audience)).body.access_token as string;
    const other = (await issuer.token(api.clientId, api.audience)).body.access_token as string;
    const basic = `Basic ${Buffer.from(`${api.clientId}:${SECRET}`).toString('base64')}`;

    const a = coldContainer();
    expect(await a.introspect('/tokeninfo', issued, basic)).toEqual({
      status: 200,
      body: expect.objectContaining({ active: true, client_id: api.clientId }),
    });
    const cold = ['BatchGetItemCommand', 'QueryCommand'];
    expect(a.commands).toEqual(cold);
    expect((await a.introspect('/tokeninfo', issued, basic)).status).toBe(200);
    // A token this container has never seen costs no read either: its revocation check is in memory.
    expect((await a.introspect('/tokeninfo', other, basic)).body).toMatchObject({ active: true });
    expect(a.commands).toEqual(cold);
    // A second later: the caller's client record again (its 1 s cache) and one Query of what was
    // revoked since, whatever the number of tokens.
    a.advance(1001);
    expect((await a.introspect('/tokeninfo', other, basic)).body).toMatchObject({ active: true });
    expect((await a.introspect('/tokeninfo', issued, basic)).body).toMatchObject({ active: true });
    expect(a.commands).toEqual([...cold, ...cold]);

    const b = coldContainer();
    expect(await b.introspect('/introspect', issued, `Bearer ${issued}`)).toEqual({
      status: 200,
      body: expect.objectContaining({ active: true }),
    });
    expect(b.commands).toEqual(cold);

    // A revoked token is inactive on a cold container too, from the same reads; a container that
    // follows the log sees it after its next read (within a second), with no read of the token's own.
    const revoker = coldContainer();
    const part = (i: number) => JSON.parse(Buffer.from(issued.split('.')[i]!, 'base64url').toString());
    await runWithRuntime(revoker.runtime, () =>
      revoker.runtime.revocations.revoke(revocationRef(part(0), part(1))!, new Date(Date.now() + 3600_000)),
    );
    const c = coldContainer();
    expect(await c.introspect('/introspect', issued, basic)).toEqual({ status: 200, body: { active: false } });
    expect(c.commands).toEqual(cold);
    expect((await a.introspect('/tokeninfo', issued, basic)).body).toMatchObject({ active: true }); // within a's second
    a.advance(1001);
    expect(await a.introspect('/tokeninfo', issued, basic)).toEqual({ status: 200, body: { active: false } });
    expect((await a.introspect('/tokeninfo', other, basic)).body).toMatchObject({ active: true });
    expect(a.commands).toEqual([...cold, ...cold, ...cold]);
  });

  it("/introspect of an HS256 token on a cold container: the one BatchGetItem (with the secret box's data key), then its Resource", async () => {
    const api = await apiFor(DEFAULT_TENANT_ID, 'HS256');
    const issued = (await coldContainer().token(api.clientId, api.audience)).body.access_token as string;
    const c = coldContainer();
    const basic = `Basic ${Buffer.from(`${api.clientId}:${SECRET}`).toString('base64')}`;
    expect(await c.introspect('/introspect', issued, basic)).toEqual({
      status: 200,
      body: expect.objectContaining({ active: true, aud: api.audience }),
    });
    expect(c.commands).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'QueryCommand']);
  });

  it('an unknown client costs one read and is 401 invalid_client', async () => {
    const c = coldContainer();
    const res = await c.token('019b0000-0000-7000-8000-00000000dead', 'https://nothing.example.com/');
    expect(res).toEqual({ status: 401, body: expect.objectContaining({ error: 'invalid_client' }) });
    expect(c.commands).toEqual(['BatchGetItemCommand']);
  });
});
