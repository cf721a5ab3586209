import { randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { FAKE_KMS_KEY_ARN } from '../../bench/lib/fake-kms.ts';
import { startKmsStandIn } from '../../bench/lib/kms-stand-in.ts';
import { createTestTable, TEST_BUDGET_ENV, type TestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { testConfig } from '../support/service/test-runtime.ts';
import { tokenEvent } from '../support/store/refresh-container.ts';

/**
 * Powertools Tracer for real, with a UDP listener standing in for the X-Ray daemon. The X-Ray SDK
 * and the Tracer only trace inside Lambda, so this file sets what Lambda sets for an invocation
 * (this test file runs in a process of its own): `AWS_EXECUTION_ENV` (the Tracer turns itself on),
 * `LAMBDA_TASK_ROOT` (the SDK takes Lambda's segment from the trace header), `_X_AMZN_TRACE_ID`
 * (the invocation's trace, sampled), `_HANDLER` (the subsegment's name) and
 * `AWS_XRAY_DAEMON_ADDRESS` (here: the listener).
 */
const TRACE_ROOT = '1-67891233-abcdef012345678912345678';
const daemon = createSocket('udp4');
const received: string[] = [];
daemon.on('message', (msg) => received.push(msg.toString('utf8')));
await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
Object.assign(process.env, {
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  LAMBDA_TASK_ROOT: mkdtempSync(join(tmpdir(), 'task-root-')),
  _X_AMZN_TRACE_ID: `Root=${TRACE_ROOT};Parent=53995c3f42cd8ad8;Sampled=1`,
  _HANDLER: 'index.handler',
  AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
  AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
});
// Only now: the X-Ray SDK reads the daemon address when it loads.
const { functionTracing } = await import('#shared/observability/sdk-tracing.ts');
const { createRuntime } = await import('#shared/runtime.ts');
const { rotateKeys } = await import('#shared/keys/rotate-keys.ts');
const { handler } = await import('../../functions/health/get-health.ts');
const { handler: tokenHandler } = await import('../../functions/oauth/token.ts');
const { bootstrap } = await import('#shared/bootstrap/bootstrap.ts');

type Segment = Record<string, any> & { name: string; id: string; trace_id?: string; parent_id?: string };

let table: TestTable;
let runtime: Runtime;

beforeAll(async () => {
  table = await createTestTable('tracing');
  const config = testConfig(table, TEST_BUDGET_ENV);
  // The runtime's own DynamoDB client, captured by the Tracer (no test client injected).
  runtime = createRuntime(config, { tracing: functionTracing('identity-service') });
  await rotateKeys({ config, db: runtime.db, now: runtime.now });
});
afterAll(() => daemon.close());

const segmentsOf = (datagrams: string[]): Segment[] =>
  datagrams.map((d) => {
    // The daemon protocol: a JSON header line, then the segment document.
    const [header, body] = d.split('\n');
    expect(JSON.parse(header!)).toEqual({ format: 'json', version: 1 });
    return JSON.parse(body!) as Segment;
  });

/** Waits until the listener has a subsegment that `done` accepts. */
async function until(done: (segments: Segment[]) => boolean): Promise<Segment[]> {
  for (let i = 0; i < 100; i++) {
    const segments = segmentsOf(received);
    if (done(segments)) return segments;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no such trace; received: ${received.join('\n---\n').slice(0, 2000)}`);
}

/** Every subsegment of a segment document, nested ones included. */
const flatten = (s: Segment): Segment[] => [s, ...((s.subsegments as Segment[] | undefined) ?? []).flatMap(flatten)];

describe('Powertools Tracer in a Lambda-like process, traces sent to a local daemon (UDP)', () => {
  it("sends the handler's subsegment with its DynamoDB calls as subsegments, annotated, and no token", async () => {
    expect(runtime.tracing.mode).toBe('sdk');
    const now = Math.floor(Date.now() / 1000);
    const token = await runtime.keys.signJwt(
      'ES256',
      { typ: 'at+jwt' },
      {
        iss: runtime.config.issuer,
        sub: 'c',
        aud: 'https://any.example/api',
        client_id: 'c',
        scope: '',
        iat: now,
        nbf: now,
        exp: now + 60,
        jti: 'j-1',
      },
    );
    received.length = 0;
    const res = await runWithRuntime(runtime, () =>
      handler(restEvent({ method: 'GET', resource: '/company/v1/health', headers: { Authorization: `Bearer ${token}` } }), lambdaContext),
    );
    expect(res.statusCode).toBe(200);

    // Subsegments reach the daemon one by one as they close, each naming its parent and trace.
    const isHandler = (s: Segment) => s.name === '## index.handler';
    const inHandler = (all: Segment[]) => {
      const h = all.find(isHandler);
      return h ? all.filter((s) => s.name === 'DynamoDB' && s.parent_id === h.id) : [];
    };
    const segments = await until((all) => inHandler(all.flatMap(flatten)).length > 0);
    const all = segments.flatMap(flatten);
    const handlerSegment = all.find(isHandler)!;
    expect(handlerSegment.trace_id).toBe(TRACE_ROOT);
    // Its parent is Lambda's own segment, the one the trace header names.
    expect(handlerSegment.parent_id).toBe('53995c3f42cd8ad8');
    expect(handlerSegment.annotations).toEqual({ ColdStart: expect.any(Boolean), Service: 'identity-service' });
    expect(handlerSegment.end_time).toBeGreaterThanOrEqual(handlerSegment.start_time);
    // The health check's table probe (and the key read the token check needs) as DynamoDB subsegments of the handler's.
    const dynamo = inHandler(all);
    expect(dynamo.length).toBeGreaterThanOrEqual(1);
    for (const d of dynamo) {
      expect(d.trace_id).toBe(TRACE_ROOT);
      expect(d.namespace).toBe('aws');
      expect(d.aws).toMatchObject({ operation: expect.any(String), table_name: table.tableName });
    }
    // No response body (captureResponse: false) and no part of the token in what X-Ray receives.
    const raw = received.join('\n');
    expect(raw).not.toContain(token.split('.')[2]!);
    expect(raw).not.toContain(token.split('.')[1]!);
    expect(raw).not.toContain('server_status');
  });

  it('KMS calls are subsegments too: a cold container opening its envelope-wrapped signing key (Decrypt) at /token, against a KMS stand-in over HTTP', async () => {
    // KMS cannot run here: the stand-in speaks KMS's JSON protocol with real AES-GCM and ECDSA
    // behind it (bench/lib/kms-stand-in.ts), and the SDK reaches it through its per-service
    // endpoint setting, as the bench's cold-start probe does.
    const kms = await startKmsStandIn();
    Object.assign(process.env, { AWS_ENDPOINT_URL_KMS: kms.url, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
    try {
      const kmsTable = await createTestTable('tracingkms');
      const config = testConfig(kmsTable, { ...TEST_BUDGET_ENV, KEY_MODE: 'envelope', KMS_KEY_ID: FAKE_KMS_KEY_ARN });
      const setup = createRuntime(config);
      await rotateKeys({ config, db: setup.db, now: setup.now });
      const secret = 'tracing-kms-secret-0123456789abcdefghijklmnopqrstuvw';
      const clientId = randomUUID();
      await bootstrap({
        db: setup.db,
        tableName: config.tableName,
        secretBox: setup.secretBox,
        now: setup.now,
        managementAudience: config.managementAudience,
        defaultClientId: clientId,
        defaultClientSecret: secret,
      });
      // A fresh container, traced: its first token opens the signing key with one Decrypt.
      const traced = createRuntime(config, { tracing: functionTracing('identity-service') });
      const decryptsBefore = kms.calls().Decrypt ?? 0;
      received.length = 0;
      const res = await runWithRuntime(traced, () =>
        tokenHandler(
          tokenEvent({ id: clientId, secret }, { grant_type: 'client_credentials', audience: config.managementAudience }),
          lambdaContext,
        ),
      );
      expect(res.statusCode, res.body).toBe(200);
      expect((kms.calls().Decrypt ?? 0) - decryptsBefore).toBeGreaterThanOrEqual(1);

      const inHandler = (all: Segment[]) => {
        const h = all.find((s) => s.name === '## index.handler');
        return h ? all.filter((s) => s.name === 'KMS' && s.parent_id === h.id) : [];
      };
      const all = (await until((segments) => inHandler(segments.flatMap(flatten)).length > 0)).flatMap(flatten);
      const [decrypt] = inHandler(all).filter((s) => s.aws?.operation === 'Decrypt');
      expect(decrypt).toMatchObject({ trace_id: TRACE_ROOT, namespace: 'aws' });
      // Neither the token nor a key's plaintext reaches X-Ray.
      const raw = received.join('\n');
      const token = JSON.parse(res.body).access_token as string;
      expect(raw).not.toContain(token.split('.')[2]!);
      expect(raw).not.toContain('Plaintext');
    } finally {
      await kms.close();
    }
  });
});
