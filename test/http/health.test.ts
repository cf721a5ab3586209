import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { handler } from '../../functions/health/get-health.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { testRuntime } from '../support/service/test-runtime.ts';

let table: TestTable;
let runtime: Runtime;

beforeAll(async () => {
  table = await createTestTable('health');
  runtime = testRuntime(table);
});

async function token(rt: Runtime, audience = 'https://any.example/api') {
  const now = Math.floor(Date.now() / 1000);
  return rt.keys.signJwt(
    'ES256',
    { typ: 'at+jwt' },
    {
      iss: rt.config.issuer,
      sub: 'c',
      aud: audience,
      client_id: 'c',
      scope: '',
      iat: now,
      nbf: now,
      exp: now + 60,
      jti: `j-${now}-${Math.random()}`,
    },
  );
}

const call = (rt: Runtime, headers: Record<string, string>) =>
  runWithRuntime(rt, () => handler(restEvent({ method: 'GET', resource: '/company/v1/health', headers }), lambdaContext));

describe('health handler through the real middy chain (spec 4.4)', () => {
  it('answers ok with any valid token of ours, with security headers and a JSON body', async () => {
    const res = await call(runtime, { Authorization: `Bearer ${await token(runtime)}` });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({
      server_name: 'identity-service',
      server_status: 'ok',
      server_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
    expect(JSON.parse(res.body)).not.toHaveProperty('failed_dependencies');
    expect(res.headers['Strict-Transport-Security'] ?? res.headers['strict-transport-security']).toBe(
      'max-age=15552000; includeSubDomains',
    );
  });

  it('normalizes header names: a lower-case authorization header works too', async () => {
    const res = await call(runtime, { authorization: `Bearer ${await token(runtime)}` });
    expect(res.statusCode).toBe(200);
  });

  it('answers degraded when the table cannot be reached', async () => {
    const own = await createTestTable('health-gone');
    const rt = testRuntime(own);
    const t = await token(rt); // publishes and caches the key
    expect(JSON.parse((await call(rt, { authorization: `Bearer ${t}` })).body).server_status).toBe('ok');
    const admin = new DynamoDBClient({ endpoint: own.endpoint, region: 'local', credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });
    await admin.send(new DeleteTableCommand({ TableName: own.tableName }));
    const res = await call(rt, { authorization: `Bearer ${t}` });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ server_status: 'degraded', failed_dependencies: 'dynamodb' });
  });

  it('refuses a missing token with 401 in the error shape', async () => {
    const res = await call(runtime, {});
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body)).toEqual({ code: 'unauthorized', message: 'Missing bearer token.' });
  });
});
