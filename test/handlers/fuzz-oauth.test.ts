import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { runWithRuntime, type Runtime } from '../../shared/runtime.ts';
import type { HttpResponse } from '../../shared/http/response.ts';
import { createTestTable } from '../support/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/events.ts';
import { testRuntime } from '../support/test-runtime.ts';

type Handler = (e: APIGatewayProxyEvent, c: Context) => Promise<HttpResponse>;
let runtime: Runtime;
const handlers: Record<string, Handler> = {};

beforeAll(async () => {
  runtime = testRuntime(await createTestTable('fuzz'));
  for (const name of ['token', 'tokeninfo', 'introspect', 'revoke']) {
    handlers[name] = ((await import(`../../functions/oauth/${name}.ts`)) as { handler: Handler }).handler;
  }
});

const contentTypes = fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain', 'application/json; charset=utf-8', '');
const params = fc.dictionary(
  fc.constantFrom('grant_type', 'client_id', 'client_secret', 'scope', 'audience', 'resource', 'token', 'token_type_hint', '__proto__', 'constructor'),
  fc.oneof(fc.string(), fc.constantFrom('client_credentials', 'password', 'implicit', '', '%', '%E0%A4%A'), fc.array(fc.string(), { maxLength: 3 })),
);
const bodies = fc.oneof(
  params.map((p) => {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(p)) for (const x of Array.isArray(v) ? v : [v]) form.append(k, x);
    return form.toString();
  }),
  params.map((p) => JSON.stringify(p)),
  fc.string(),
  fc.constantFrom('{', 'null', '[]', '"x"', '1e999', '{"grant_type":{"a":1}}'),
  // API.md §8: invalid UTF-8 (percent-encoded, or as the U+FFFD API Gateway leaves), duplicate JSON members.
  fc.constantFrom('grant_type=client_credentials&scope=%FF', 'token=%C0%AF', 'grant_type=client_credentials\uFFFD', '{"token":"a","token":"b"}', '{"grant_type":"client_credentials","grant\\u005ftype":"password"}', '{"token":"\uFFFD"}'),
);
const authorizations = fc.oneof(
  fc.constant(undefined),
  fc.string().map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
  fc.string().map((s) => `Bearer ${s}`),
  fc.constantFrom('Basic', 'Basic !!!', 'Bearer', 'Bearer a.b.c', 'Basic Og=='),
);

/** DESIGN.md §3.12: whatever a client sends, the answer is a JSON error body with a 4xx, never a 500. */
describe('fuzz: OAuth endpoints never answer 5xx to client input', () => {
  for (const name of ['token', 'tokeninfo', 'introspect', 'revoke']) {
    it(`POST /${name}`, async () => {
      await fc.assert(
        fc.asyncProperty(bodies, contentTypes, authorizations, async (body, contentType, authorization) => {
          const headers: Record<string, string> = { 'Content-Type': contentType };
          if (authorization) headers.Authorization = authorization;
          const res = await runWithRuntime(runtime, () => handlers[name]!(restEvent({ method: 'POST', resource: `/${name}`, headers, body }), lambdaContext));
          expect(res.statusCode, res.body).toBeLessThan(500);
          if (res.statusCode >= 400) expect(JSON.parse(res.body)).toMatchObject({ code: expect.any(String), message: expect.any(String) });
        }),
        { numRuns: 150 },
      );
    });
  }
});
