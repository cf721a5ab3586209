import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { TicketFormBody } from '#shared/browser/page-forms.ts';
import { csrfToken } from '#shared/html/csrf.ts';
import type { HttpResponse } from '#shared/http/response.ts';
import { SYSTEM_ACTOR_ID } from '#shared/records/common.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { ticketsRepository } from '#shared/store/sessions/tickets-repository.ts';
import { usersRepository } from '#shared/store/users/users-repository.ts';
import { RegisterBody } from '#shared/users/register-body.ts';
import { arbitraryFromSchema } from '../support/fuzz/arbitrary-from-schema.ts';
import { fuzzParams } from '../support/fuzz/fuzz-support.ts';
import { formName, toJsonText } from '../support/fuzz/fuzz-values.ts';
import { createTestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { testRuntime } from '../support/service/test-runtime.ts';

/**
 * docs/design.md §3.12 over the sign-up routes (docs/users.md "Registration and email"): whatever the
 * body, path, content type and credentials, registration answers a JSON 4xx naming the field, and
 * the ticket page an HTML 4xx page; never a 5xx. Bodies are derived from the schemas the handlers
 * validate with, so a new field is fuzzed without touching this file.
 */
type Handler = (e: APIGatewayProxyEvent, c: Context) => Promise<HttpResponse>;
const REGISTER = 'POST /identity/v1/users/register';
const TICKET_ROUTES = ['GET /tickets/{ticket}', 'POST /tickets/{ticket}'];
let runtime: Runtime;
let register: Handler;
let ticketPage: Handler;
let publicClientId: string;
let confidential: { id: string; secret: string };
let liveTickets: string[];
let liveCsrf: string[];

beforeAll(async () => {
  runtime = testRuntime(await createTestTable('fuzz-signup'), { OUTBOX_DIR: join(mkdtempSync(join(tmpdir(), 'outbox-')), 'outbox') });
  register = ((await import('../../functions/users/register.ts')) as { handler: Handler }).handler;
  ticketPage = ((await import('../../functions/pages/ticket.ts')) as { handler: Handler }).handler;
  const clients = clientsRepository(runtime.db, runtime.config.tableName, runtime.now, runtime.secretBox);
  publicClientId = (await clients.create({ tenant_id: DEFAULT_TENANT_ID, client_name: 'fuzz spa', is_public: true }, SYSTEM_ACTOR_ID)).id;
  const secret = 'fuzz-signup-client-secret-0123456789abcdefghij';
  confidential = {
    id: (await clients.create({ tenant_id: DEFAULT_TENANT_ID, client_name: 'fuzz app', client_secret: secret }, SYSTEM_ACTOR_ID)).id,
    secret,
  };
  const users = usersRepository(runtime.db, runtime.config.tableName, runtime.now);
  const tickets = ticketsRepository(runtime.db, runtime.config.tableName, runtime.now);
  const user = await users.create({ tenant_id: DEFAULT_TENANT_ID, email: 'fuzz-ticket@example.com' }, SYSTEM_ACTOR_ID);
  liveTickets = [];
  for (let i = 0; i < 5; i++) {
    const made = await tickets.create({
      kind: 'email_verification',
      userId: user.id,
      tenantId: DEFAULT_TENANT_ID,
      email: user.email,
      ttlSeconds: 3600,
    });
    liveTickets.push(made.value);
  }
  // The pages' CSRF tokens of those tickets (shared/browser/ticket-page.ts), so some posts get through to the redemption.
  const key = await runtime.serviceSecret('hosted-pages');
  liveCsrf = liveTickets.map((t) => csrfToken(key, 'ticket', t));
});

it('every sign-up route of the route table is declared here', () => {
  // The other hosted pages have fuzzers of their own (login, consent, logout: pages; /device: test/pages/fuzz-device-page.test.ts).
  const ours = ROUTES.filter((r) => r.handler === 'functions/users/register' || r.handler === 'functions/pages/ticket');
  expect(ours.map((r) => `${r.method} ${r.path}`).sort()).toEqual([REGISTER, ...TICKET_ROUTES].sort());
});

/** A lone surrogate has no URI encoding: API Gateway would hold the raw path then. */
const safeEncode = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return s;
  }
};
const statuses = new Map<number, number>();
const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
const text = (x: unknown) => (typeof x === 'string' ? x : (JSON.stringify(x) ?? ''));
const contentTypes = fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain', '');

/** A body with its content type: mostly the one that fits it (so the runs reach the use case), else any. */
function bodies(params: fc.Arbitrary<unknown>): fc.Arbitrary<[string, string]> {
  const fitting = (ct: string) => fc.oneof({ weight: 4, arbitrary: fc.constant(ct) }, { weight: 1, arbitrary: contentTypes });
  return fc.oneof(
    fc.tuple(
      params.map((p) => {
        const form = new URLSearchParams();
        if (isObject(p))
          for (const [k, x] of Object.entries(p)) for (const one of Array.isArray(x) ? x : [x]) form.append(formName(k), text(one));
        return form.toString();
      }),
      fitting('application/x-www-form-urlencoded'),
    ),
    fc.tuple(
      params.map((p) => toJsonText(p)),
      fitting('application/json'),
    ),
    fc.tuple(fc.string(), contentTypes),
    fc.tuple(
      fc.constantFrom('{', 'null', '[]', '"x"', '1e999', 'email=a%FF', '{"email":"a@b.co","email":"c@d.co"}', 'csrf_token=a&csrf_token=b'),
      contentTypes,
    ),
  );
}

describe('fuzz: sign-up routes never answer 5xx', () => {
  it(REGISTER, { timeout: 120_000 }, async () => {
    const hints = {
      client_id: (derived: fc.Arbitrary<unknown>) =>
        fc.oneof({ weight: 4, arbitrary: fc.constant(publicClientId) }, { weight: 1, arbitrary: derived }),
      // Mostly fresh addresses, so the writes run; some repeats meet their own 409.
      email: (derived: fc.Arbitrary<unknown>) =>
        fc.oneof({ weight: 3, arbitrary: fc.nat(40).map((n) => `fuzz${n}@example.com`) }, { weight: 1, arbitrary: derived }),
      // A public client sends no secret: mostly leave it out, so the runs get past authentication.
      client_secret: (derived: fc.Arbitrary<unknown>) =>
        fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: derived }),
      // Nor an assertion (private_key_jwt, tested in test/oauth/private-key-jwt.test.ts): mostly left out too.
      client_assertion: (derived: fc.Arbitrary<unknown>) =>
        fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: derived }),
      client_assertion_type: (derived: fc.Arbitrary<unknown>) =>
        fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: derived }),
      password: (derived: fc.Arbitrary<unknown>) =>
        fc.oneof({ weight: 3, arbitrary: fc.constant('correct horse battery staple 7') }, { weight: 1, arbitrary: derived }),
    };
    const authorizations = fc.oneof(
      fc.constant(undefined),
      fc.constant(`Basic ${Buffer.from(`${confidential.id}:${confidential.secret}`).toString('base64')}`),
      fc.string().map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
      fc.constantFrom('Basic', 'Basic !!!', 'Bearer a.b.c'),
    );
    await fc.assert(
      fc.asyncProperty(bodies(arbitraryFromSchema(RegisterBody, { hints })), authorizations, async ([body, contentType], authorization) => {
        const headers: Record<string, string> = { 'Content-Type': contentType };
        if (authorization) headers.Authorization = authorization;
        const event = restEvent({ method: 'POST', resource: '/identity/v1/users/register', headers, body });
        const res = await runWithRuntime(runtime, () => register(event, lambdaContext));
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        expect(res.statusCode, res.body).toBeLessThan(500);
        if (res.statusCode >= 400) {
          const parsed = JSON.parse(res.body) as { code: string; message: string };
          expect(parsed).toMatchObject({ code: expect.any(String), message: expect.any(String) });
          if (res.statusCode === 400) expect(parsed.message, res.body).toMatch(/^(body|query|path|header)[.:]|^Use one client/);
        } else {
          expect(res.statusCode).toBe(201);
          expect(res.body).not.toContain('password');
        }
      }),
      fuzzParams(120, 0, 11)[0],
    );
    // The runs reach the writes (with the fixed seed: FUZZ_SEED replaces it, fuzz-support.ts).
    if (!process.env.FUZZ_SEED) expect(statuses.get(201) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(0);
  });

  for (const route of TICKET_ROUTES) {
    it(route, { timeout: 120_000 }, async () => {
      const [method] = route.split(' ') as [string];
      const tickets = fc.oneof(
        fc.constantFrom(...liveTickets),
        fc.string(),
        fc.constantFrom('', '%', '<script>', 'A'.repeat(43), '\u0000', '\uD800'),
      );
      await fc.assert(
        fc.asyncProperty(
          tickets,
          bodies(arbitraryFromSchema(TicketFormBody, { hints: { csrf_token: (d) => fc.oneof(d, fc.constantFrom(...liveCsrf)) } })),
          async (ticket, [body, contentType]) => {
            const event = restEvent({
              method,
              resource: '/tickets/{ticket}',
              path: `/tickets/${safeEncode(ticket)}`,
              pathParameters: { ticket },
              headers: { 'Content-Type': contentType },
              body: method === 'POST' ? body : null,
            });
            const res = await runWithRuntime(runtime, () => ticketPage(event, lambdaContext));
            expect(res.statusCode, res.body).toBeLessThan(500);
            expect(res.headers['Content-Type']).toBe('text/html; charset=utf-8');
            expect(res.headers['Content-Security-Policy']).toMatch(/^default-src 'none'; /);
            expect(res.body).not.toContain('<script');
            if (res.statusCode >= 400) expect([400, 404, 413]).toContain(res.statusCode);
          },
        ),
        fuzzParams(150, 0, 12)[0],
      );
    });
  }
});
