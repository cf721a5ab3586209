import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConsentFormBody, LoginFormBody, LogoutParams } from '#shared/browser/page-forms.ts';
import { PASSKEY_SCRIPT } from '#shared/browser/passkeys/passkey-script.ts';
import type { HttpResponse } from '#shared/http/response.ts';
import { SYSTEM_ACTOR_ID } from '#shared/records/common.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { interactionsRepository } from '#shared/store/sessions/interactions-repository.ts';
import { sessionsRepository } from '#shared/store/sessions/sessions-repository.ts';
import { usersRepository } from '#shared/store/users/users-repository.ts';
import { arbitraryFromSchema } from '../support/fuzz/arbitrary-from-schema.ts';
import { fuzzParams } from '../support/fuzz/fuzz-support.ts';
import { formName, toJsonText } from '../support/fuzz/fuzz-values.ts';
import { createTestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { testRuntime } from '../support/service/test-runtime.ts';

/**
 * docs/design.md §3.12 over `/login`, `/consent` and `/logout` (docs/browser-flows.md): whatever the
 * query, form body, content type and cookies (live interactions and sessions among them), the
 * answer is an HTML page (4xx or 200) or a 303 to this service or a registered address; never a
 * 5xx, never a script.
 */
type Handler = (e: APIGatewayProxyEvent, c: Context) => Promise<HttpResponse>;
const PAGES = ['login', 'consent', 'logout'] as const;
const BYE = 'https://app.example.com/bye';
let runtime: Runtime;
let interactionIds: string[];
let cookies: string[];
let clientId: string;

beforeAll(async () => {
  runtime = testRuntime(await createTestTable('fuzz-pages'));
  const { db, config, now, secretBox } = runtime;
  const clients = clientsRepository(db, config.tableName, now, secretBox);
  clientId = (
    await clients.create(
      {
        tenant_id: DEFAULT_TENANT_ID,
        client_name: 'fuzz <b>app</b>',
        client_metadata: { urls: { post_logout_redirect_uris: [BYE] } },
      } as never,
      SYSTEM_ACTOR_ID,
    )
  ).id;
  const user = await usersRepository(db, config.tableName, now).create(
    { tenant_id: DEFAULT_TENANT_ID, email: 'fuzz-pages@example.com' },
    SYSTEM_ACTOR_ID,
  );
  const interactions = interactionsRepository(db, config.tableName, now);
  const sessions = sessionsRepository(db, config.tableName, now);
  interactionIds = [];
  cookies = [];
  for (let i = 0; i < 3; i++) {
    const made = await interactions.createInteraction({
      kind: 'authorize',
      tenant_id: DEFAULT_TENANT_ID,
      client_id: clientId,
      scopes: ['openid', '<script>x</script>'],
      prompt: i === 0 ? ['login'] : [],
      return_to: '/.well-known/openid-configuration',
      payload: {},
    });
    const { value, session } = await sessions.createSession({ userId: user.id, tenantId: DEFAULT_TENANT_ID, authTime: 1, amr: ['pwd'] });
    await interactions.recordLogin(made.id, { user_id: user.id, session_id: session.id, auth_time: 1, amr: ['pwd'] });
    interactionIds.push(made.id);
    cookies.push(value);
  }
});

it('every page route of this area is fuzzed here', () => {
  const ours = ROUTES.filter((r) => PAGES.some((p) => r.handler === `functions/pages/${p}`));
  expect(ours.map((r) => `${r.method} ${r.path}`).sort()).toEqual(PAGES.flatMap((p) => [`GET /${p}`, `POST /${p}`]).sort());
});

const text = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A form (or JSON, or garbage) body from the page's schema, with its content type. */
function bodies(params: fc.Arbitrary<unknown>): fc.Arbitrary<[string, string]> {
  return fc.oneof(
    params.map((p): [string, string] => {
      const form = new URLSearchParams();
      if (isObject(p))
        for (const [k, x] of Object.entries(p)) for (const one of Array.isArray(x) ? x : [x]) form.append(formName(k), text(one));
      return [form.toString(), 'application/x-www-form-urlencoded'];
    }),
    params.map((p): [string, string] => [toJsonText(p), 'application/json']),
    fc.tuple(fc.string(), fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json', '')),
  );
}

const values = () =>
  fc.oneof(
    fc.string(),
    fc.constantFrom('', '<script>alert(1)</script>', '\u0000', '\uD800', 'A'.repeat(43), BYE, `${BYE}/`, 'allow', 'deny', 'x'.repeat(5000)),
  );

describe('fuzz: hosted pages never answer 5xx', () => {
  for (const page of PAGES) {
    for (const method of ['GET', 'POST'] as const) {
      it(`${method} /${page}`, { timeout: 120_000 }, async () => {
        const handler = ((await import(`../../functions/pages/${page}.ts`)) as { handler: Handler }).handler;
        const schema = page === 'login' ? LoginFormBody : page === 'consent' ? ConsentFormBody : LogoutParams;
        const query = fc.dictionary(
          fc.constantFrom('interaction', 'id_token_hint', 'post_logout_redirect_uri', 'state', 'client_id', 'x'),
          fc.oneof(values(), fc.constantFrom(...interactionIds), fc.constant(clientId)),
          { maxKeys: 4 },
        );
        const cookie = fc.oneof(
          fc.constant(undefined),
          fc.constantFrom(...cookies).map((c) => `session=${c}`),
          values().map((v) => `session=${v}; csrf=${v}`),
        );
        const body = bodies(arbitraryFromSchema(schema, {}));
        await fc.assert(
          fc.asyncProperty(query, cookie, body, fc.boolean(), async (q, c, [b, contentType], repeated) => {
            const event = restEvent({
              method,
              resource: `/${page}`,
              path: `/${page}`,
              headers: { 'Content-Type': contentType, ...(c ? { Cookie: c } : {}) },
              query: q,
              ...(repeated && q.interaction !== undefined ? { multiValueQuery: { interaction: [q.interaction, 'other'] } } : {}),
              body: method === 'POST' ? b : null,
            });
            const res = await runWithRuntime(runtime, () => handler(event, lambdaContext));
            expect(res.statusCode, res.body).toBeLessThan(500);
            // The one script a page may carry is the passkey ceremonies' constant.
            expect(res.body.replace(`<script>${PASSKEY_SCRIPT.source}</script>`, '')).not.toContain('<script');
            if (res.statusCode === 303) {
              const location = res.headers.Location!;
              expect(location.startsWith(`${runtime.config.issuer}/`) || location.startsWith(BYE), location).toBe(true);
            } else {
              expect(res.headers['Content-Type']).toBe('text/html; charset=utf-8');
              expect(res.headers['Content-Security-Policy']).toMatch(/^default-src 'none'; /);
              expect([200, 400, 413, 429]).toContain(res.statusCode);
            }
          }),
          fuzzParams(80, 0, 300 + PAGES.indexOf(page) * 2 + (method === 'POST' ? 1 : 0))[0],
        );
      });
    }
  }
});
