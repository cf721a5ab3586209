import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { createRuntime, type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { identityProvidersRepository } from '#shared/store/federation/identity-providers-repository.ts';
import { handler as tokenHandler } from '../../functions/oauth/token.ts';
import { type ExternalProvider, startExternalProvider } from '../support/oauth/external-provider.ts';
import { EXCHANGE } from '../support/oauth/token-exchange.ts';
import { createTestTable, recordingClient, type TestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { deployedRuntime } from '../support/service/test-runtime.ts';

/**
 * What a token exchange asks of DynamoDB and of the provider, per container (docs/federation.md
 * "Token exchange", "Cost"): each test starts a fresh runtime (a cold Lambda container) on a table
 * a deploy has filled, and records every DynamoDB command it sends and every request the provider
 * receives.
 */
const ACTOR = '019b0000-0000-7000-8000-0000000000aa';
const ENV = { LOCAL_MASTER_KEY_FILE: join(mkdtempSync(join(tmpdir(), 'exchangekeys-')), 'master.key') };

let table: TestTable;
let setup: Runtime;
let external: ExternalProvider;
let clientId: string;

beforeAll(async () => {
  table = await createTestTable('exchangereads');
  setup = await deployedRuntime(table, ENV);
  external = await startExternalProvider();
  const { db, config, now, secretBox } = setup;
  const client = await clientsRepository(db, config.tableName, now, secretBox).create(
    { tenant_id: DEFAULT_TENANT_ID, client_name: 'exchange', is_public: true, client_metadata: { grant_types: ['token_exchange'] } },
    ACTOR,
  );
  clientId = client.id;
  await identityProvidersRepository(db, config.tableName, now).create(
    {
      tenant_id: DEFAULT_TENANT_ID,
      provider_name: 'acme',
      issuer: external.issuer,
      client_id: external.clientId,
      scopes: ['openid'],
      enabled: true,
    },
    ACTOR,
  );
});
afterAll(async () => external?.stop());

function coldContainer() {
  const { db, commands } = recordingClient(table);
  // The container's clock stands still, so no cache lifetime ends between two requests of a test
  // (the provider's tokens, stamped with the real clock, stay within the 60 s tolerance).
  const clock = Date.now();
  const runtime = createRuntime(setup.config, { db, now: () => new Date(clock) });
  const exchange = async (subject_token: string) => {
    const body = new URLSearchParams({ grant_type: EXCHANGE, client_id: clientId, subject_token, subject_token_type: 'acme' }).toString();
    const res = await runWithRuntime(runtime, () =>
      tokenHandler(
        restEvent({ method: 'POST', resource: '/token', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body }),
        lambdaContext,
      ),
    );
    return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
  };
  return { commands, exchange };
}

const idToken = (sub: string) => external.mintIdToken({ sub, email: `${sub}@example.com`, email_verified: true });
const providerReads = () => external.requests.filter((p) => p === '/jwks' || p === '/.well-known/openid-configuration').length;

describe('token exchange: DynamoDB calls and provider reads per container', () => {
  it('a cold container: the client and keys in one read, the provider, the identity, the new user in one transaction', async () => {
    const c = coldContainer();
    const before = providerReads();
    const first = await c.exchange(await idToken(`new-${crypto.randomUUID()}`));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // The client and the signing keys; the provider's name marker and record; the identity's
    // marker (none); the email's marker (free); the user, its identity and markers in one transaction.
    expect(c.commands).toEqual([
      'BatchGetItemCommand',
      'GetItemCommand',
      'GetItemCommand',
      'GetItemCommand',
      'GetItemCommand',
      'TransactWriteItemsCommand',
      // The token.exchanged event: an exchange's one write of its own (docs/events.md "Recording").
      'PutItemCommand',
    ]);
    expect(providerReads() - before).toBe(2);

    c.commands.length = 0;
    const sub = `known-${crypto.randomUUID()}`;
    expect((await c.exchange(await idToken(sub))).status).toBe(200);
    // Warm: the provider is cached; the identity's and the email's markers, the transaction.
    expect(c.commands).toEqual(['GetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand', 'PutItemCommand']);

    c.commands.length = 0;
    expect((await c.exchange(await idToken(sub))).status).toBe(200);
    // A known user: the identity's marker and the user; the event.
    expect(c.commands).toEqual(['GetItemCommand', 'GetItemCommand', 'PutItemCommand']);
    // Discovery and JWKS once for the container, whatever the number of exchanges.
    expect(providerReads() - before).toBe(2);
  });
});
