import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// Info logs on in this file (the suite runs at WARN) so the "never logs the secret" check sees
// them; set before the logger module loads.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
});

const { handler, PHYSICAL_RESOURCE_ID } = await import('../../functions/admin/bootstrap.ts');
const { verifyClientSecret } = await import('#shared/crypto/client-secret.ts');
const { signingKeysRepository } = await import('#shared/keys/signing-keys-repository.ts');
const { runWithRuntime } = await import('#shared/runtime.ts');
const { clientsRepository } = await import('#shared/store/clients/clients-repository.ts');
const { keys } = await import('#shared/store/core/table-keys.ts');
const { SYSTEM_ACTOR_ID } = await import('#shared/records/common.ts');
const { createTestTable } = await import('../support/service/dynamodb.ts');
const { testRuntime } = await import('../support/service/test-runtime.ts');
const { customResourceEvent, lambdaContext, responseUrlServer } = await import('../support/service/custom-resource.ts');

type Runtime = ReturnType<typeof testRuntime>;
type Output = import('#shared/bootstrap/run-bootstrap.ts').BootstrapOutput | undefined;
type Answer = Awaited<ReturnType<typeof handler>>;

/** Every line the service logged in this test (Powertools writes to stdout/stderr). */
const logged: string[] = [];
let capturing = 0;
let restore: (() => void) | undefined;

/** Captures process output while any invocation runs (several may overlap). */
async function capture<T>(fn: () => Promise<T>): Promise<T> {
  if (capturing++ === 0) {
    const grab = (chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    };
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(grab);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(grab);
    restore = () => {
      out.mockRestore();
      err.mockRestore();
    };
  }
  try {
    return await fn();
  } finally {
    if (--capturing === 0) restore?.();
  }
}

/** Runs the handler as Lambda would, with `runtime` installed and its log output captured. */
const invokeRaw = (runtime: Runtime, event: unknown, remainingMs?: number): Promise<Answer> =>
  capture(() => runWithRuntime(runtime, () => handler(event, lambdaContext(remainingMs))));

/** For valid events: the answer is a bootstrap output (or nothing, for a custom resource). */
async function invoke(runtime: Runtime, event: unknown, remainingMs?: number): Promise<Output> {
  const answer = await invokeRaw(runtime, event, remainingMs);
  if (answer && 'error' in answer) throw new Error(`unexpected refusal: ${answer.message}`);
  return answer;
}

async function freshRuntime(prefix: string): Promise<Runtime> {
  return testRuntime(await createTestTable(prefix));
}

async function storedSecretMatches(runtime: Runtime, clientId: string, secret: string): Promise<boolean> {
  const client = await clientsRepository(runtime.db, runtime.config.tableName, runtime.now, runtime.secretBox).get(clientId);
  return verifyClientSecret(secret, client?.secret_hash);
}

const clientsOf = (runtime: Runtime) => clientsRepository(runtime.db, runtime.config.tableName, runtime.now, runtime.secretBox);

let cfn: Awaited<ReturnType<typeof responseUrlServer>>;
beforeAll(async () => {
  cfn = await responseUrlServer();
});
afterAll(async () => cfn?.close());
afterEach(() => {
  cfn.received.length = 0;
  logged.length = 0;
});

describe('functions/admin/bootstrap.ts invoked directly (npm run bootstrap)', () => {
  it('docs/contract.md §4: the first invocation creates the Default Client and returns its secret; the second returns created: false and no secret', async () => {
    const runtime = await freshRuntime('admin-bootstrap-direct');
    const first = await invoke(runtime, { printCredentials: true });
    expect(first).toMatchObject({ created: true, clientId: expect.any(String), clientSecret: expect.any(String) });
    expect(await storedSecretMatches(runtime, first!.clientId, first!.clientSecret!)).toBe(true);
    const output = logged.join('');
    expect(output).toContain('"secretReturned":true');
    expect(output).not.toContain(first!.clientSecret);

    const second = await invoke(runtime, { printCredentials: true });
    expect(second).toEqual({ created: false, clientId: first!.clientId, signingKeys: [] });
  });

  it('leaves the cursor secret and the first ES256 and RS256 signing keys (current and next) in the table', async () => {
    const runtime = await freshRuntime('admin-bootstrap-keys');
    const out = await invoke(runtime, { printCredentials: true });
    expect(out!.signingKeys.map((k) => [k.alg, k.action])).toEqual([
      ['ES256', 'created'],
      ['RS256', 'created'],
    ]);

    const { Item } = await runtime.db.send(new GetCommand({ TableName: runtime.config.tableName, Key: keys.serviceSecret('cursor') }));
    expect(Item).toMatchObject({ type: 'ServiceSecret', name: 'cursor', wrapped_by: 'local' });
    const partition = await signingKeysRepository(runtime.db, runtime.config.tableName).load();
    for (const alg of ['ES256', 'RS256'] as const) {
      const state = partition.states.get(alg);
      // kids are RFC 7638 thumbprints: SHA-256, base64url
      expect(state).toMatchObject({ currentKid: expect.stringMatching(/^[\w-]{43}$/), nextKid: expect.stringMatching(/^[\w-]{43}$/) });
      expect(state!.nextKid).not.toBe(state!.currentKid);
      expect(partition.keys.has(state!.currentKid)).toBe(true);
    }
    // The request path now finds a key to sign with, without creating one.
    await expect(runtime.keys.signJwt('ES256', {}, { sub: 'x' })).resolves.toMatch(/^ey/);
  });

  it('a rerun never rotates: the keys and the cursor secret stay as they are', async () => {
    const runtime = await freshRuntime('admin-bootstrap-rerun');
    await invoke(runtime, {});
    const before = await signingKeysRepository(runtime.db, runtime.config.tableName).load();
    const cursor = await runtime.serviceSecret('cursor');
    const again = await invoke(
      testRuntime(
        { endpoint: runtime.config.dynamodbEndpoint!, tableName: runtime.config.tableName, db: runtime.db },
        { LOCAL_MASTER_KEY_FILE: runtime.config.localMasterKeyFile! },
      ),
      {},
    );
    expect(again!.signingKeys).toEqual([]);
    const after = await signingKeysRepository(runtime.db, runtime.config.tableName).load();
    expect([...after.states.values()].map((s) => [s.currentKid, s.nextKid])).toEqual(
      [...before.states.values()].map((s) => [s.currentKid, s.nextKid]),
    );
    expect((await runtime.serviceSecret('cursor')).equals(cursor)).toBe(true);
  });

  it('without printCredentials the secret is not returned, and stays available for the first printCredentials call', async () => {
    const runtime = await freshRuntime('admin-bootstrap-noprint');
    const first = await invoke(runtime, {});
    expect(first).toMatchObject({ created: true });
    expect(first).not.toHaveProperty('clientSecret');

    const shown = await invoke(runtime, { printCredentials: true });
    expect(shown).toMatchObject({ created: false, clientId: first!.clientId, clientSecret: expect.any(String) });
    expect(await storedSecretMatches(runtime, first!.clientId, shown!.clientSecret!)).toBe(true);
    expect(await invoke(runtime, { printCredentials: true })).not.toHaveProperty('clientSecret');
  });

  it('two concurrent printCredentials calls: exactly one gets the secret', async () => {
    const runtime = await freshRuntime('admin-bootstrap-race');
    await invoke(runtime, {});
    const both = await Promise.all([invoke(runtime, { printCredentials: true }), invoke(runtime, { printCredentials: true })]);
    expect(both.filter((o) => o!.clientSecret !== undefined)).toHaveLength(1);
  });

  it('a failure is thrown (the Lambda invocation fails and the CLI shows the error)', async () => {
    const table = await createTestTable('admin-bootstrap-fail');
    const runtime = testRuntime({ ...table, tableName: 'no-such-table' });
    await expect(invoke(runtime, { printCredentials: true })).rejects.toThrow(/non-existent table|ResourceNotFound|not found/i);
  });
});

describe('functions/admin/bootstrap.ts with rotateDefaultSecret (npm run bootstrap -- --rotate-default-secret)', () => {
  const ROTATE = { printCredentials: true, rotateDefaultSecret: true };

  it('returns a new secret and stores it: the stored hash matches the new secret, not the old one; no expiry', async () => {
    const runtime = await freshRuntime('admin-rotate');
    const first = await invoke(runtime, { printCredentials: true });
    const clientId = first!.clientId;
    const oldSecret = first!.clientSecret!;
    // An expiry on the old secret, to see the rotation clear it.
    await clientsOf(runtime).changeSecret(clientId, oldSecret, 'someone', { expiresAt: '2099-01-01T00:00:00.000Z' });
    expect((await clientsOf(runtime).get(clientId))!.client_secret_expires_at).toBe('2099-01-01T00:00:00.000Z');

    const rotated = await invoke(runtime, ROTATE);
    expect(rotated).toEqual({ created: false, clientId, clientSecret: expect.any(String), rotated: true, signingKeys: [] });
    const newSecret = rotated!.clientSecret!;
    expect(newSecret).not.toBe(oldSecret);
    // 256 bits, base64url.
    expect(Buffer.from(newSecret, 'base64url')).toHaveLength(32);

    const stored = await clientsOf(runtime).get(clientId);
    expect(verifyClientSecret(newSecret, stored?.secret_hash)).toBe(true);
    expect(verifyClientSecret(oldSecret, stored?.secret_hash)).toBe(false);
    expect(stored!.client_secret_expires_at).toBeNull();
    expect(stored!.updated_by).toBe(SYSTEM_ACTOR_ID);
    expect(await runtime.secretBox.open(stored!.secret_sealed!)).toBe(newSecret);

    // Logged that a secret was rotated and returned, never the secret.
    const output = logged.join('');
    expect(output).toContain('"secretRotated":true');
    expect(output).not.toContain(newSecret);

    // A plain run afterwards does not show it again.
    expect(await invoke(runtime, { printCredentials: true })).toEqual({ created: false, clientId, signingKeys: [] });
  });

  it('every rotation replaces the previous secret', async () => {
    const runtime = await freshRuntime('admin-rotate-twice');
    const a = await invoke(runtime, ROTATE);
    const b = await invoke(runtime, ROTATE);
    expect(b!.clientId).toBe(a!.clientId);
    expect(b!.clientSecret).not.toBe(a!.clientSecret);
    const stored = await clientsOf(runtime).get(b!.clientId);
    expect(verifyClientSecret(b!.clientSecret!, stored?.secret_hash)).toBe(true);
    expect(verifyClientSecret(a!.clientSecret!, stored?.secret_hash)).toBe(false);
  });

  it('on a fresh stage: creates the Default Client and returns a rotated secret that is the stored one', async () => {
    const runtime = await freshRuntime('admin-rotate-fresh');
    const out = await invoke(runtime, ROTATE);
    expect(out).toMatchObject({ created: true, clientId: expect.any(String), clientSecret: expect.any(String), rotated: true });
    expect(await clientsOf(runtime).findDefaultClientId()).toBe(out!.clientId);
    expect(await storedSecretMatches(runtime, out!.clientId, out!.clientSecret!)).toBe(true);
  });

  it('before the secret was ever shown: the deploy-time secret stops working and no later run shows the new one again', async () => {
    const runtime = await freshRuntime('admin-rotate-unshown');
    const deployed = await invoke(runtime, {});
    const sealed = (await clientsOf(runtime).get(deployed!.clientId))!.secret_sealed!;
    const deploySecret = await runtime.secretBox.open(sealed);

    const rotated = await invoke(runtime, ROTATE);
    expect(rotated!.clientSecret).not.toBe(deploySecret);
    expect(await storedSecretMatches(runtime, deployed!.clientId, rotated!.clientSecret!)).toBe(true);
    expect(await storedSecretMatches(runtime, deployed!.clientId, deploySecret)).toBe(false);
    expect(await invoke(runtime, { printCredentials: true })).not.toHaveProperty('clientSecret');
  });

  it('invalid events get a clear error answer, and nothing runs (no client, no rotation)', async () => {
    const runtime = await freshRuntime('admin-rotate-invalid');
    const cases: [unknown, RegExp][] = [
      [{ rotateDefaultSecret: true }, /rotateDefaultSecret requires printCredentials: true/],
      [{ rotateDefaultSecret: true, printCredentials: false }, /rotateDefaultSecret requires printCredentials: true/],
      [{ printCredentials: 'true' }, /event\.printCredentials: expected boolean, received "true"/],
      [{ printCredentials: true, rotateDefaultSecret: 1 }, /event\.rotateDefaultSecret: expected boolean, received 1/],
      [{ printCredentials: true, rotateDefaultSecrets: true }, /event\.rotateDefaultSecrets: unknown field/],
      ['rotate', /event: expected Object, received "rotate"/],
      [42, /event: expected Object/],
    ];
    for (const [event, message] of cases) {
      const answer = await invokeRaw(runtime, event);
      expect(answer).toEqual({ error: 'invalid_request', message: expect.stringMatching(message) });
      expect((answer as { message: string }).message).toMatch(/^Invalid bootstrap request: /);
    }
    expect(await clientsOf(runtime).findDefaultClientId()).toBeUndefined();

    // And on a bootstrapped stage the refused rotation left the secret alone.
    const first = await invoke(runtime, { printCredentials: true });
    expect(await invokeRaw(runtime, { rotateDefaultSecret: true })).toMatchObject({ error: 'invalid_request' });
    expect(await storedSecretMatches(runtime, first!.clientId, first!.clientSecret!)).toBe(true);
  });

  it('an event without a payload (null) is a plain bootstrap', async () => {
    const runtime = await freshRuntime('admin-rotate-null');
    const out = await invoke(runtime, null);
    expect(out).toMatchObject({ created: true });
    expect(out).not.toHaveProperty('clientSecret');
  });
});

describe('functions/admin/bootstrap.ts as a CloudFormation custom resource', () => {
  it('Create: runs the bootstrap and answers SUCCESS with the client id only, never the secret', async () => {
    const runtime = await freshRuntime('admin-bootstrap-cfn');
    expect(await invoke(runtime, customResourceEvent('Create', cfn.url))).toBeUndefined();
    expect(cfn.received).toHaveLength(1);
    const [response] = cfn.received;
    expect(response!.method).toBe('PUT');
    // The pre-signed URL is signed for an empty Content-Type (the cfn-response module sends '').
    expect(response!.contentType ?? '').toBe('');
    const clientId = (response!.json.Data as { DefaultClientId: string }).DefaultClientId;
    expect(response!.json).toEqual({
      Status: 'SUCCESS',
      PhysicalResourceId: PHYSICAL_RESOURCE_ID,
      StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/IdentityService-test/4b8e7f10-0000-11f0-0000-0a1b2c3d4e5f',
      RequestId: 'req-Create',
      LogicalResourceId: 'BootstrapRun31281615',
      Data: { DefaultClientId: clientId },
    });

    // The one-off command shows the secret the deploy generated, once; it was in no response or log.
    const shown = await invoke(runtime, { printCredentials: true });
    expect(shown).toMatchObject({ created: false, clientId, clientSecret: expect.any(String) });
    expect(await storedSecretMatches(runtime, clientId, shown!.clientSecret!)).toBe(true);
    expect(response!.body).not.toContain(shown!.clientSecret);
    expect(logged.join('')).not.toContain(shown!.clientSecret);
    expect((await invoke(runtime, { printCredentials: true }))!.clientSecret).toBeUndefined();
  });

  it('ignores rotateDefaultSecret (in the event or its properties): the secret stays, and no secret is in the answer', async () => {
    const runtime = await freshRuntime('admin-bootstrap-cfn-rotate');
    await invoke(runtime, customResourceEvent('Create', cfn.url));
    const shown = await invoke(runtime, { printCredentials: true });
    const clientId = shown!.clientId;
    const before = await clientsOf(runtime).get(clientId);

    for (const type of ['Create', 'Update'] as const) {
      const event = customResourceEvent(type, cfn.url);
      const flagged = {
        ...event,
        printCredentials: true,
        rotateDefaultSecret: true,
        ResourceProperties: { ...event.ResourceProperties, printCredentials: true, rotateDefaultSecret: true },
      };
      expect(await invoke(runtime, flagged)).toBeUndefined();
    }
    expect(cfn.received.slice(1).map((r) => [r.json.Status, r.json.Data])).toEqual([
      ['SUCCESS', { DefaultClientId: clientId }],
      ['SUCCESS', { DefaultClientId: clientId }],
    ]);
    const after = await clientsOf(runtime).get(clientId);
    expect(after!.secret_hash).toBe(before!.secret_hash);
    expect(after!.version).toBe(before!.version);
    expect(await storedSecretMatches(runtime, clientId, shown!.clientSecret!)).toBe(true);
    expect(logged.join('')).toContain('"secretRotated":false');
    for (const r of cfn.received) expect(r.body).not.toContain(shown!.clientSecret);
  });

  it('Update: reruns (idempotent) and keeps the physical id; Delete: answers SUCCESS and leaves the records', async () => {
    const runtime = await freshRuntime('admin-bootstrap-cfn-update');
    await invoke(runtime, customResourceEvent('Create', cfn.url));
    await invoke(runtime, customResourceEvent('Update', cfn.url));
    await invoke(runtime, customResourceEvent('Delete', cfn.url));
    expect(cfn.received.map((r) => [r.json.RequestId, r.json.Status, r.json.PhysicalResourceId])).toEqual([
      ['req-Create', 'SUCCESS', PHYSICAL_RESOURCE_ID],
      ['req-Update', 'SUCCESS', PHYSICAL_RESOURCE_ID],
      ['req-Delete', 'SUCCESS', PHYSICAL_RESOURCE_ID],
    ]);
    const ids = cfn.received.slice(0, 2).map((r) => (r.json.Data as { DefaultClientId: string }).DefaultClientId);
    expect(ids[0]).toBe(ids[1]);
    expect(await clientsRepository(runtime.db, runtime.config.tableName, runtime.now, runtime.secretBox).get(ids[0]!)).toMatchObject({
      id: ids[0],
    });
  });

  it('a failure answers FAILED with a reason and a log pointer, so the deploy stops instead of hanging', async () => {
    const table = await createTestTable('admin-bootstrap-cfn-fail');
    const runtime = testRuntime({ ...table, tableName: 'no-such-table' });
    // 12 s left: one attempt, no time for a retry (they wait 5 s and more).
    await invoke(runtime, customResourceEvent('Create', cfn.url), 12_000);
    expect(cfn.received).toHaveLength(1);
    expect(cfn.received[0]!.json).toMatchObject({ Status: 'FAILED', PhysicalResourceId: PHYSICAL_RESOURCE_ID, RequestId: 'req-Create' });
    expect(cfn.received[0]!.json.Reason).toMatch(/^Bootstrap failed: .*ResourceNotFoundException.*Log: \/aws\/test\/FunctionLogs /);
  });

  it('Delete answers SUCCESS even when the stage configuration no longer loads (stack deletion must not hang)', async () => {
    const table = await createTestTable('admin-bootstrap-cfn-delete');
    await invoke(testRuntime({ ...table, tableName: 'gone' }), customResourceEvent('Delete', cfn.url, 'identity-service-bootstrap'));
    expect(cfn.received.map((r) => r.json.Status)).toEqual(['SUCCESS']);
  });
});
