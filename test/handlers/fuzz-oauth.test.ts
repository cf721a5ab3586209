import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type * as v from 'valibot';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { IntrospectionBodySchema, IntrospectionQuerySchema } from '../../shared/oauth/introspection-request.ts';
import { TokenRequestSchema } from '../../shared/oauth/issue-token.ts';
import { RevokeRequestSchema } from '../../shared/oauth/revoke-token.ts';
import { runWithRuntime, type Runtime } from '../../shared/runtime.ts';
import type { HttpResponse } from '../../shared/http/response.ts';
import { arbitraryFromSchema } from '../support/arbitrary-from-schema.ts';
import { createTestTable } from '../support/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/events.ts';
import { formName, toJsonText } from '../support/fuzz-values.ts';
import { testRuntime } from '../support/test-runtime.ts';

type Handler = (e: APIGatewayProxyEvent, c: Context) => Promise<HttpResponse>;
let runtime: Runtime;
const handlers: Record<string, Handler> = {};

/** Each endpoint with the schemas its handler validates with (functions/oauth/*.ts). */
const ENDPOINTS: { name: string; body: v.GenericSchema; query?: v.GenericSchema }[] = [
  { name: 'token', body: TokenRequestSchema },
  { name: 'tokeninfo', body: IntrospectionBodySchema, query: IntrospectionQuerySchema },
  { name: 'introspect', body: IntrospectionBodySchema, query: IntrospectionQuerySchema },
  { name: 'revoke', body: RevokeRequestSchema },
];

beforeAll(async () => {
  runtime = testRuntime(await createTestTable('fuzz'));
  for (const { name } of ENDPOINTS) {
    handlers[name] = ((await import(`../../functions/oauth/${name}.ts`)) as { handler: Handler }).handler;
  }
});

/** Values no schema names: the grant names and spellings /token knows, and broken percent-encoding. */
const hints = {
  grant_type: (derived: fc.Arbitrary<unknown>) => fc.oneof(derived, fc.constantFrom('client_credentials', 'password', 'implicit', '', '%', '%E0%A4%A')),
  token_type_hint: (derived: fc.Arbitrary<unknown>) => fc.oneof(derived, fc.constantFrom('access_token', 'refresh_token')),
};
const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
const text = (x: unknown) => (typeof x === 'string' ? x : (JSON.stringify(x) ?? ''));

const contentTypes = fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain', 'application/json; charset=utf-8', '');
function bodies(schema: v.GenericSchema): fc.Arbitrary<string> {
  const params = arbitraryFromSchema(schema, { hints });
  return fc.oneof(
    params.map((p) => {
      const form = new URLSearchParams();
      if (isObject(p)) for (const [k, x] of Object.entries(p)) for (const one of Array.isArray(x) ? x : [x]) form.append(formName(k), text(one));
      return form.toString();
    }),
    params.map((p) => toJsonText(p)),
    fc.string(),
    fc.constantFrom('{', 'null', '[]', '"x"', '1e999', '{"grant_type":{"a":1}}'),
  );
}
/** Query parameters (strings, as API Gateway passes them) of the endpoints that read a query. */
function queries(schema: v.GenericSchema | undefined): fc.Arbitrary<Record<string, string> | undefined> {
  if (!schema) return fc.constant(undefined);
  const query = arbitraryFromSchema(schema, { hints }).map((q) => (isObject(q) ? Object.fromEntries(Object.entries(q).map(([k, x]) => [formName(k), text(x)])) : undefined));
  return fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: query });
}
const authorizations = fc.oneof(
  fc.constant(undefined),
  fc.string().map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
  fc.string().map((s) => `Bearer ${s}`),
  fc.constantFrom('Basic', 'Basic !!!', 'Bearer', 'Bearer a.b.c', 'Basic Og=='),
);

/** DESIGN.md §3.12: whatever a client sends, the answer is a JSON error body with a 4xx, never a 500. */
describe('fuzz: OAuth endpoints never answer 5xx to client input', () => {
  for (const { name, body, query } of ENDPOINTS) {
    it(`POST /${name}`, async () => {
      await fc.assert(
        fc.asyncProperty(bodies(body), queries(query), contentTypes, authorizations, async (text, q, contentType, authorization) => {
          const headers: Record<string, string> = { 'Content-Type': contentType };
          if (authorization) headers.Authorization = authorization;
          const event = restEvent({ method: 'POST', resource: `/${name}`, headers, body: text, ...(q ? { query: q } : {}) });
          const res = await runWithRuntime(runtime, () => handlers[name]!(event, lambdaContext));
          expect(res.statusCode, res.body).toBeLessThan(500);
          if (res.statusCode >= 400) expect(JSON.parse(res.body)).toMatchObject({ code: expect.any(String), message: expect.any(String) });
        }),
        { numRuns: 150 },
      );
    });
  }
});
