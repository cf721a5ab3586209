import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { AccountFormBody } from '#shared/browser/account/account-forms.ts';
import { formToken } from '#shared/browser/browser-responses.ts';
import { PASSKEY_SCRIPT } from '#shared/browser/passkeys/passkey-script.ts';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import type { HttpResponse } from '#shared/http/response.ts';
import { SYSTEM_ACTOR_ID } from '#shared/records/common.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { sessionsRepository } from '#shared/store/sessions/sessions-repository.ts';
import { usersRepository } from '#shared/store/users/users-repository.ts';
import { arbitraryFromSchema } from '../support/fuzz/arbitrary-from-schema.ts';
import { fuzzParams } from '../support/fuzz/fuzz-support.ts';
import { formName, toJsonText } from '../support/fuzz/fuzz-values.ts';
import { createTestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { testRuntime } from '../support/service/test-runtime.ts';

/**
 * docs/design.md §3.12 over `/account` (docs/passkeys.md "The account page"): whatever the query,
 * form body, content type and cookies (live sessions, old and recent, with the right CSRF cookie
 * and token among them, so the actions' own checks are reached), the answer is an HTML page
 * (4xx or 200) or a 303 to this service; never a 5xx, never a script but the ceremony's.
 */
type Handler = (e: APIGatewayProxyEvent, c: Context) => Promise<HttpResponse>;
const CSRF = 'A'.repeat(43);
let runtime: Runtime;
let cookies: string[];
let tokens: string[];

beforeAll(async () => {
  runtime = testRuntime(await createTestTable('fuzz-account'));
  const { db, config, now } = runtime;
  const users = usersRepository(db, config.tableName, now);
  const passwordHash = await hashPassword('correct-Horse-battery-9137');
  const sessions = sessionsRepository(db, config.tableName, now);
  cookies = [];
  tokens = [];
  // One user per session: an action that ends every session of its user (sign out everywhere, a
  // password change) leaves the other users' sessions to the next runs.
  for (let i = 0; i < 12; i++) {
    const user = await users.create(
      { tenant_id: DEFAULT_TENANT_ID, username: `fuzz_account_${i}`, password_hash: passwordHash } as never,
      SYSTEM_ACTOR_ID,
    );
    const authTime = i % 2 === 0 ? 1 : Math.floor(now().getTime() / 1000);
    const { value, session } = await sessions.createSession({ userId: user.id, tenantId: DEFAULT_TENANT_ID, authTime, amr: ['pwd'] });
    cookies.push(value);
    tokens.push(await formToken(() => runtime.serviceSecret('hosted-pages'), 'account', session.id, CSRF));
  }
});

it('every route of the account page is fuzzed here', () => {
  const ours = ROUTES.filter((r) => r.handler === 'functions/pages/account');
  expect(ours.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /account', 'POST /account']);
});

const text = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const ACTIONS = ['change-password', 'add-passkey', 'remove-passkey', 'withdraw-grant', 'sign-out-everywhere'];

const values = () =>
  fc.oneof(
    fc.string(),
    fc.constantFrom(
      '',
      '<script>alert(1)</script>',
      '\u0000',
      '\uD800',
      'A'.repeat(43),
      'x'.repeat(5000),
      'change-password',
      'add-passkey',
      'remove-passkey',
      'withdraw-grant',
      'sign-out-everywhere',
      '019b0000-0000-7000-8000-00000000dead',
      '{"id":"x","rawId":"x","type":"public-key","response":{}}',
      'AAAAAAAAAAAAAAAAAAAAAA.9999999999',
      'password',
      'passkey-added',
    ),
  );

/** A form (or JSON, or garbage) body: the schema's fields, a real token of a session often. */
function bodies(session: number): fc.Arbitrary<[string, string]> {
  const params = fc.tuple(
    arbitraryFromSchema(AccountFormBody, {}),
    fc.boolean(),
    fc.option(fc.oneof(values(), fc.constantFrom(...ACTIONS))),
  );
  return fc.oneof(
    {
      weight: 3,
      arbitrary: params.map(([p, token, action]): [string, string] => {
        const form = new URLSearchParams();
        if (isObject(p))
          for (const [k, x] of Object.entries(p)) for (const one of Array.isArray(x) ? x : [x]) form.append(formName(k), text(one));
        if (token) form.set('csrf_token', tokens[session]!);
        if (action) form.set('action', action);
        return [form.toString(), 'application/x-www-form-urlencoded'];
      }),
    },
    { weight: 1, arbitrary: params.map(([p]): [string, string] => [toJsonText(p), 'application/json']) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.string(), fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json', '')),
    },
  );
}

describe('fuzz: the account page never answers 5xx', () => {
  for (const method of ['GET', 'POST'] as const) {
    it(`${method} /account`, { timeout: 120_000 }, async () => {
      const handler = ((await import('../../functions/pages/account.ts')) as { handler: Handler }).handler;
      let reached = 0;
      const query = fc.dictionary(fc.constantFrom('tenant', 'done', 'x'), values(), { maxKeys: 3 });
      // The session a run uses: its cookie with the CSRF cookie, and (often) its form token in the body.
      const run = fc.nat(cookies.length - 1).chain((i) =>
        fc.tuple(
          fc.oneof(
            fc.constant(undefined),
            fc.constant(`session=${cookies[i]}; csrf=${CSRF}`),
            fc.constant(`session=${cookies[i]}`),
            values().map((v) => `session=${v}; csrf=${v}`),
          ),
          bodies(i),
        ),
      );
      await fc.assert(
        fc.asyncProperty(query, run, async (q, [c, [b, contentType]]) => {
          const event = restEvent({
            method,
            resource: '/account',
            path: '/account',
            headers: { 'Content-Type': contentType, ...(c ? { Cookie: c } : {}) },
            query: q,
            body: method === 'POST' ? b : null,
          });
          const res = await runWithRuntime(runtime, () => handler(event, lambdaContext));
          // An action's own answer: its confirmation, or the page with its section's refusal.
          const page = res.body;
          if (
            res.headers.Location?.includes('/account?done=') ||
            page.includes('<h1>Signed out everywhere</h1>') ||
            (page.includes('<h1>Your account</h1>') && res.statusCode >= 400)
          ) {
            reached++;
          }
          expect(res.statusCode, res.body).toBeLessThan(500);
          expect(res.body.replace(`<script>${PASSKEY_SCRIPT.source}</script>`, '')).not.toContain('<script');
          if (res.statusCode === 303) {
            expect(res.headers.Location!.startsWith(`${runtime.config.issuer}/`), res.headers.Location).toBe(true);
          } else {
            expect(res.headers['Content-Type']).toBe('text/html; charset=utf-8');
            expect(res.headers['Content-Security-Policy']).toMatch(/^default-src 'none'; /);
            expect([200, 400, 409, 413, 429]).toContain(res.statusCode);
          }
        }),
        fuzzParams(80, 0, 320 + (method === 'POST' ? 1 : 0))[0],
      );
      // The runs get past the session and CSRF checks to the actions' own, not only to their refusal.
      if (method === 'POST') expect(reached).toBeGreaterThan(0);
    });
  }
});
