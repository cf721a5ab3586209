import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { createRuntime, type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { clientLinksRepository } from '#shared/store/clients/client-links-repository.ts';
import { clientPermissionsRepository } from '#shared/store/clients/client-permissions-repository.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { resourcesRepository } from '#shared/store/resources/resources-repository.ts';
import { handler as tokenHandler } from '../../functions/oauth/token.ts';
import { createTestTable, recordingClient, type TestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { deployedRuntime } from '../support/service/test-runtime.ts';

/**
 * What DPoP costs the token path in DynamoDB calls (docs/client-authentication.md "Sender-constrained
 * tokens (DPoP)"): a DPoP client_credentials token is exactly one write more than a plain one (the
 * proof's jti, one conditional PutItem); the nonce is stateless (no call to issue or check it).
 */
const ACTOR = '019b0000-0000-7000-8000-0000000000dd';
const SECRET = 'dpop-reads-secret-0123456789abcdefghijklmnopqrs';
const ENV = { LOCAL_MASTER_KEY_FILE: join(mkdtempSync(join(tmpdir(), 'dpopkeys-')), 'master.key') };

let table: TestTable;
let setup: Runtime;
let api: { clientId: string; audience: string };

beforeAll(async () => {
  table = await createTestTable('dpopreads');
  setup = await deployedRuntime(table, ENV);
  const { db, config, now, secretBox } = setup;
  const client = await clientsRepository(db, config.tableName, now, secretBox).create(
    { tenant_id: DEFAULT_TENANT_ID, client_name: 'dpop reads', client_secret: SECRET },
    ACTOR,
  );
  const audience = `https://dpop-${client.id}.example.com/`;
  const r = await resourcesRepository(db, config.tableName, now, secretBox).create(
    { tenant_id: DEFAULT_TENANT_ID, resource_type: 'api', resource_name: 'dpop', resource_metadata: { identifier_url: audience } },
    ACTOR,
    [{ scope_name: 'read' }],
  );
  await clientLinksRepository(db, config.tableName, now).authorize(client.id, [r.id], ACTOR);
  await clientPermissionsRepository(db, config.tableName, now).grant(
    client.id,
    [{ resource_id: r.id, scopes: Object.keys(r.scope_names) }],
    ACTOR,
  );
  api = { clientId: client.id, audience };
});

/** A container of its own whose DynamoDB commands are recorded. */
function container() {
  const { db, commands } = recordingClient(table);
  const runtime = createRuntime(setup.config, { db });
  const token = async (dpop?: string) => {
    const headers: Record<string, string> = {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${api.clientId}:${SECRET}`).toString('base64')}`,
      ...(dpop ? { DPoP: dpop } : {}),
    };
    const body = new URLSearchParams({ grant_type: 'client_credentials', audience: api.audience }).toString();
    const res = await runWithRuntime(runtime, () =>
      tokenHandler(restEvent({ method: 'POST', resource: '/token', headers, body }), lambdaContext),
    );
    return { status: res.statusCode, headers: res.headers ?? {}, body: JSON.parse(res.body) as Record<string, any> };
  };
  return { runtime, commands, token };
}

describe('DynamoDB calls of a DPoP token', () => {
  it('a warm DPoP client_credentials token costs exactly one write more than a plain one (the jti)', async () => {
    const pair = await generateKeyPair('ES256');
    const jwk = await exportJWK(pair.publicKey);
    const proof = (nonce?: string) =>
      new SignJWT({ jti: randomUUID(), iat: Math.floor(Date.now() / 1000), htm: 'POST', htu: `${setup.config.issuer}/token`, nonce })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(pair.privateKey);
    const c = container();
    expect((await c.token()).status).toBe(200); // warms the client, resource and keys
    const asked = await c.token(await proof());
    expect(asked.body.error).toBe('use_dpop_nonce');
    const nonce = String(asked.headers['DPoP-Nonce']);
    expect((await c.token(await proof(nonce))).status).toBe(200);

    c.commands.length = 0;
    const plain = await c.token();
    expect(plain.status).toBe(200);
    const plainCalls = [...c.commands];
    c.commands.length = 0;
    const bound = await c.token(await proof(nonce));
    expect(bound.status).toBe(200);
    expect(bound.body.token_type).toBe('DPoP');
    expect(c.commands).toEqual([...plainCalls, 'PutItemCommand']);
    expect(plainCalls).toEqual([]); // a warm plain token calls nothing, so DPoP's cost is the jti write alone

    const jwks = createLocalJWKSet({ keys: (await c.runtime.keys.publishedKeys()).map((k) => k.jwk) });
    const { payload } = await jwtVerify(bound.body.access_token, jwks, { audience: api.audience });
    expect(payload.cnf).toEqual({ jkt: await calculateJwkThumbprint(jwk) });
    // A nonce refusal writes nothing: the retry costs no jti.
    c.commands.length = 0;
    expect((await c.token(await proof('0.AAAAAAAAAAAAAAAAAAAAAA'))).body.error).toBe('use_dpop_nonce');
    expect(c.commands).toEqual([]);
  });

  // The resource's cold read takes the secret box's data key along (HS256 secrets open with it), and
  // the nonce key derives from it: the first nonce costs an unwrap, no call of its own.
  it("a cold container's first DPoP request: the plain token's one read, nothing more for the nonce", async () => {
    const pair = await generateKeyPair('ES256');
    const jwk = await exportJWK(pair.publicKey);
    const proof = () =>
      new SignJWT({ jti: randomUUID(), iat: Math.floor(Date.now() / 1000), htm: 'POST', htu: `${setup.config.issuer}/token` })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(pair.privateKey);
    const c = container();
    const first = await c.token(await proof());
    expect(first.body.error).toBe('use_dpop_nonce');
    expect(c.commands).toEqual(['BatchGetItemCommand']);
    expect((await c.token(await proof())).body.error).toBe('use_dpop_nonce');
    expect(c.commands).toEqual(['BatchGetItemCommand']);
  });
});
