import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '#shared/bootstrap/bootstrap.ts';
import { createKeyBackend } from '#shared/keys/key-backend.ts';
import { contexts } from '#shared/keys/key-wrapper.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { forgetClient, forgetResources } from '#shared/wiring/token-path/token-path-records.ts';
import { FAKE_KMS_KEY_ARN, installFakeKms } from '../../bench/lib/fake-kms.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';

/**
 * Signing keys and sealed secrets, over HTTP against the local service in envelope key mode, with KMS
 * stood in by aws-sdk-client-mock with real AES-GCM and key generation behind it (bench/lib/fake-kms.ts),
 * counting every KMS command the service sends.
 */
let kms: ReturnType<typeof installFakeKms>;
let svc: TestService;
let call: ReturnType<typeof managementCaller>;

beforeAll(async () => {
  kms = installFakeKms();
  svc = await startTestService({ env: { KEY_MODE: 'envelope', KMS_KEY_ID: FAKE_KMS_KEY_ARN, AWS_REGION: 'us-east-1' } });
  call = managementCaller(svc.url, await svc.managementToken());
});
afterAll(async () => {
  await svc?.stop();
  kms?.restore();
});

/** The KMS commands `fn` made the service send. */
async function kmsCallsOf(fn: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = kms.calls();
  await fn();
  const after = kms.calls();
  return Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)])
      .filter(([, v]) => (v as number) > 0),
  );
}

describe('the JWKS holds the current signing keys from the first start (docs/contract.md §8)', () => {
  it('a fresh stack serves an ES256 and an RS256 key before any token exists, and the first token is signed by one of them', async () => {
    const fresh = await startTestService();
    try {
      const res = await fetch(`${fresh.url}/.well-known/jwks.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      const jwks = (await res.json()) as { keys: { kid: string; alg: string }[] };
      // current and next of each algorithm, published before anything was signed
      expect(jwks.keys.map((k) => k.alg).sort()).toEqual(['ES256', 'ES256', 'RS256', 'RS256']);
      const token = await fresh.managementToken();
      const { protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks as never), { issuer: fresh.url });
      expect(jwks.keys.map((k) => k.kid)).toContain(protectedHeader.kid);
      // the token did not add keys: the JWKS a relying party cached first still verifies it
      expect(((await (await fetch(`${fresh.url}/.well-known/jwks.json`)).json()) as typeof jwks).keys).toEqual(jwks.keys);
    } finally {
      await fresh.stop();
    }
  });
});

describe('secrets sealed under a data key: revealing them costs no KMS call warm', () => {
  it('a list page of clients revealed to read:client_keys (every secret opened) sends no KMS command', async () => {
    for (let i = 0; i < 12; i++) expect((await call('POST', '/clients', { body: { client_name: `sealed ${i}` } })).status).toBe(201);
    const reader = await svc.managementToken('read:clients read:client_keys');
    let page: any;
    const calls = await kmsCallsOf(async () => {
      page = (await call('GET', '/clients?limit=50', { token: reader })).body;
    });
    expect(page.items.length).toBeGreaterThanOrEqual(13);
    for (const c of page.items.filter((x: any) => !x.is_public)) expect(c.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(calls).toEqual({});
    // Creating a client (a seal) costs none either.
    expect(await kmsCallsOf(() => call('POST', '/clients', { body: { client_name: 'one more' } }))).toEqual({});
  });

  it('secrets of the earlier format (one KMS Encrypt each) still open, and the bootstrap moves them under the data key once', async () => {
    const { runtime } = svc.stack;
    const table = runtime.config.tableName;
    const wrapper = createKeyBackend(runtime.config).wrapper;
    const legacy = async (plaintext: string) => `kms1.${await wrapper.wrap(Buffer.from(plaintext), contexts.secretBox())}`;

    // A client and an HS256 Resource as an earlier release stored them.
    const client = (await call('POST', '/clients', { body: { client_name: 'old client' } })).body;
    const identifier = `https://legacy-${Date.now()}.example.com/`;
    const resource = (
      await call('POST', '/resources', {
        body: {
          resource_type: 'api',
          resource_name: 'old',
          resource_metadata: {
            identifier_url: identifier,
            signing_algorithm: 'HS256',
            signing_secret: 'legacy-hs256-secret-0123456789abcdef',
          },
        },
      })
    ).body;
    expect((await call('POST', `/clients/${client.id}/resources`, { body: { resources: [resource.id] } })).status).toBe(204);
    const oldClientSecret = await legacy(client.client_secret);
    const oldSigning = await legacy('legacy-hs256-secret-0123456789abcdef');
    const set = (key: { PK: string; SK: string }, path: string, value: string) =>
      runtime.db.send(
        new UpdateCommand({ TableName: table, Key: key, UpdateExpression: `SET ${path} = :v`, ExpressionAttributeValues: { ':v': value } }),
      );
    await set(keys.client(client.id), 'secret_sealed', oldClientSecret);
    await set(keys.resource(resource.id), 'resource_metadata.signing_secret', oldSigning);
    await set(keys.marker('RESOURCE_ID_URL', resource.tenant_id, identifier), 'token_view.signing_secret', oldSigning);
    // A table from before this release has not run the migration.
    await runtime.db.send(new DeleteCommand({ TableName: table, Key: keys.migrationDone('secret-box-dk1') }));
    forgetClient(runtime, client.id);
    forgetResources(runtime);

    const reader = await svc.managementToken('read:clients read:client_keys read:resources');
    const reveal = async () => (await call('GET', `/clients/${client.id}`, { token: reader })).body.client_secret;
    expect(await kmsCallsOf(async () => expect(await reveal()).toBe(client.client_secret))).toEqual({ Decrypt: 1 });
    const token = await fetch(`${svc.url}/token`, {
      method: 'POST',
      headers: { authorization: basicAuth(client.id, client.client_secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', audience: identifier }),
    });
    expect(token.status).toBe(200);

    const run = () =>
      bootstrap({
        db: runtime.db,
        tableName: table,
        secretBox: runtime.secretBox,
        now: runtime.now,
        managementAudience: runtime.config.managementAudience,
      });
    await run();
    const stored = async (key: { PK: string; SK: string }) =>
      (await runtime.db.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item!;
    expect((await stored(keys.client(client.id))).secret_sealed).toMatch(/^dk1\./);
    const moved = (await stored(keys.resource(resource.id))).resource_metadata.signing_secret as string;
    expect(moved).toMatch(/^dk1\./);
    expect((await stored(keys.marker('RESOURCE_ID_URL', resource.tenant_id, identifier))).token_view.signing_secret).toBe(moved);
    expect(await stored(keys.migrationDone('secret-box-dk1'))).toMatchObject({ name: 'secret-box-dk1' });

    // Same secrets, no KMS call to reveal them now; the HS256 Resource still signs with its secret.
    forgetClient(runtime, client.id);
    forgetResources(runtime);
    expect(await kmsCallsOf(async () => expect(await reveal()).toBe(client.client_secret))).toEqual({});
    const res = await call('GET', `/resources/${resource.id}`, { token: reader });
    expect(res.body.resource_metadata.signing_secret).toBe('legacy-hs256-secret-0123456789abcdef');
    const again = await fetch(`${svc.url}/token`, {
      method: 'POST',
      headers: { authorization: basicAuth(client.id, client.client_secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', audience: identifier }),
    });
    expect(again.status).toBe(200);
    await jwtVerify(((await again.json()) as any).access_token, new TextEncoder().encode('legacy-hs256-secret-0123456789abcdef'), {
      audience: identifier,
    });

    // A rerun finds the migration done and changes nothing.
    const sealedClient = (await stored(keys.client(client.id))).secret_sealed;
    await run();
    expect((await stored(keys.client(client.id))).secret_sealed).toBe(sealedClient);
    expect((await stored(keys.resource(resource.id))).resource_metadata.signing_secret).toBe(moved);
  });
});
