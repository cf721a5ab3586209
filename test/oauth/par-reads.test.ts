import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { createRuntime, type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { handler as authorizeHandler } from '../../functions/oauth/authorize.ts';
import { handler as parHandler } from '../../functions/oauth/par.ts';
import { REDIRECT } from '../support/oauth/authorize-flow.ts';
import { createTestTable, recordingClient, type TestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { basicAuth } from '../support/service/local-service.ts';
import { testRuntime } from '../support/service/test-runtime.ts';

/**
 * What a pushed authorization request costs in DynamoDB calls (docs/client-authentication.md
 * "Pushed authorization requests (PAR)"), through the real handlers on a container whose commands
 * are recorded, its clock stopped so its 1 s client cache holds between requests: a warm push is
 * ONE PutItem; /authorize with the request_uri is ONE DeleteItem (the take) and the interaction's
 * PutItem; a refused take adds one GetItem and writes nothing.
 */
const ACTOR = '019b0000-0000-7000-8000-0000000000cc';
const SECRET = 'par-reads-secret-0123456789abcdefghijklmnopqrstuvwxyz';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
let table: TestTable;
let setup: Runtime;
let clientId: string;

beforeAll(async () => {
  table = await createTestTable('parreads');
  setup = testRuntime(table);
  const client = await clientsRepository(setup.db, setup.config.tableName, setup.now, setup.secretBox).create(
    {
      tenant_id: DEFAULT_TENANT_ID,
      client_name: 'par reads',
      client_secret: SECRET,
      client_metadata: { grant_types: ['authorization_code'], urls: { redirect_uris: [REDIRECT] } },
    },
    ACTOR,
  );
  clientId = client.id;
});

function container() {
  const frozen = new Date();
  const { db, commands } = recordingClient(table);
  const runtime = createRuntime(setup.config, { db, now: () => frozen });
  const push = async () => {
    const body = new URLSearchParams({
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 's',
      nonce: 'n',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    }).toString();
    const event = restEvent({
      method: 'POST',
      resource: '/par',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basicAuth(clientId, SECRET) },
      body,
    });
    const res = await runWithRuntime(runtime, () => parHandler(event, lambdaContext));
    expect(res.statusCode, res.body).toBe(201);
    return (JSON.parse(res.body) as { request_uri: string }).request_uri;
  };
  const authorize = (requestUri: string) =>
    runWithRuntime(runtime, () =>
      authorizeHandler(
        restEvent({ method: 'GET', resource: '/authorize', query: { client_id: clientId, request_uri: requestUri } }),
        lambdaContext,
      ),
    );
  return { commands, push, authorize };
}

describe('DynamoDB calls of PAR', () => {
  it('a warm push: ONE PutItem; /authorize with its request_uri: ONE DeleteItem and the interaction’s PutItem', async () => {
    const c = container();
    await c.push(); // warms the client cache
    c.commands.length = 0;
    const requestUri = await c.push();
    expect(c.commands).toEqual(['PutItemCommand']);

    c.commands.length = 0;
    const res = await c.authorize(requestUri);
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers?.Location).toMatch(/\/login\?interaction=/);
    expect(c.commands).toEqual(['DeleteItemCommand', 'PutItemCommand']);
  });

  it('a refused take (used already): the failed DeleteItem and ONE GetItem, no write', async () => {
    const c = container();
    const requestUri = await c.push();
    expect((await c.authorize(requestUri)).statusCode).toBe(303);
    c.commands.length = 0;
    const again = await c.authorize(requestUri);
    expect(again.statusCode).toBe(400);
    expect(c.commands).toEqual(['DeleteItemCommand', 'GetItemCommand']);
  });

  it('a request_uri not of our form: no call at all', async () => {
    const c = container();
    await c.push();
    c.commands.length = 0;
    expect((await c.authorize('urn:ietf:params:oauth:request_uri:nope')).statusCode).toBe(400);
    expect(c.commands).toEqual([]);
  });
});
