import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserBinding, formToken } from '#shared/browser/browser-responses.ts';
import type { HttpResponse } from '#shared/http/response.ts';
import { SYSTEM_ACTOR_ID } from '#shared/records/common.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { interactionsRepository } from '#shared/store/sessions/interactions-repository.ts';
import { deviceAuthorizationDeps } from '#shared/wiring/authorize.ts';
import { createTestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { testRuntime } from '../support/service/test-runtime.ts';

/**
 * docs/design.md §3.12 over the device pages (`GET|POST /device`, `GET /device/resume`): whatever the
 * form, query, cookies and content type, an HTML answer below 500, never a redirect anywhere but
 * `/login` of this service. Real user codes, CSRF tokens and interaction ids are mixed in so runs
 * reach past each check.
 */
type Handler = (e: APIGatewayProxyEvent, c: Context) => Promise<HttpResponse>;
let runtime: Runtime;
let devicePage: Handler;
let resume: Handler;
const userCodes: string[] = [];
const interactionIds: string[] = [];
const csrf = { cookie: '', token: '' };

beforeAll(async () => {
  runtime = testRuntime(await createTestTable('fuzz-device'));
  devicePage = ((await import('../../functions/pages/device.ts')) as { handler: Handler }).handler;
  resume = ((await import('../../functions/pages/device-resume.ts')) as { handler: Handler }).handler;
  const { db, config, now, secretBox } = runtime;
  const tv = await clientsRepository(db, config.tableName, now, secretBox).create(
    { tenant_id: DEFAULT_TENANT_ID, client_name: 'fuzz tv', is_public: true, client_metadata: { grant_types: ['device_code'] } },
    SYSTEM_ACTOR_ID,
  );
  const deviceCodes = deviceAuthorizationDeps(runtime).deviceCodes;
  for (let i = 0; i < 3; i++) {
    const { device } = await deviceCodes.create({
      clientId: tv.id,
      tenantId: DEFAULT_TENANT_ID,
      scopes: ['openid'],
      lifetimeSeconds: 600,
      intervalSeconds: 5,
    });
    userCodes.push(device.user_code, `${device.user_code.slice(0, 4)}-${device.user_code.slice(4).toLowerCase()}`);
    const interaction = await interactionsRepository(db, config.tableName, now).createInteraction({
      kind: 'device',
      tenant_id: DEFAULT_TENANT_ID,
      client_id: tv.id,
      scopes: ['openid'],
      prompt: ['consent'],
      return_to: '/device/resume?interaction={id}',
      payload: { device_hash: device.hash },
    });
    interactionIds.push(interaction.id);
  }
  const binding = browserBinding({}, false);
  csrf.cookie = binding.value;
  csrf.token = await formToken(() => runtime.serviceSecret('hosted-pages'), 'device', binding.value);
});

const anyString = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('', '%', '%E0%A4%A', '\uFFFD', '<script>'));
const userCode = fc.oneof(
  anyString,
  fc.constant(0).map(() => userCodes[0]!),
  fc.constantFrom(0, 1, 2, 3, 4, 5).map((i) => userCodes[i]!),
);
const csrfToken = fc.oneof(
  anyString,
  fc.constant(0).map(() => csrf.token),
);
const cookie = fc.oneof(
  fc.constant(undefined),
  fc.constant(0).map(() => `csrf=${csrf.cookie}`),
  anyString.map((s) => `csrf=${s}; session=${s}`),
  anyString,
);
const form = fc.record({ user_code: userCode, csrf_token: csrfToken }, { requiredKeys: [] });
const bodies = fc.oneof(
  form.map((f) => ({ type: 'application/x-www-form-urlencoded', body: new URLSearchParams(f as Record<string, string>).toString() })),
  form.map((f) => ({ type: 'application/json', body: JSON.stringify(f) })),
  fc.record({ type: fc.constantFrom('text/plain', '', 'application/json'), body: fc.oneof(anyString, fc.constantFrom('{', '[]', 'null')) }),
);
const interactionId = fc.oneof(
  anyString,
  fc.constantFrom(0, 1, 2).map((i) => interactionIds[i]!),
);

const call = (handler: Handler, event: APIGatewayProxyEvent) => runWithRuntime(runtime, () => handler(event, lambdaContext));

function expectPageAnswer(res: HttpResponse): void {
  expect(res.statusCode, res.body).toBeLessThan(500);
  if (res.statusCode === 303) expect(res.headers.Location).toMatch(/\/login\?interaction=[A-Za-z0-9_-]{43}$/);
  else expect(res.headers['Content-Type']).toMatch(/^text\/html/);
}

describe('fuzz: the device pages never answer 5xx', () => {
  it('covers every route of the device pages', () => {
    const ours = ROUTES.filter((r) => r.handler.startsWith('functions/pages/device')).map((r) => `${r.method} ${r.path}`);
    expect(ours.sort()).toEqual(['GET /device', 'GET /device/resume', 'POST /device']);
  });

  it('POST /device', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, cookie, fc.ipV4(), async ({ type, body }, c, ip) => {
        const headers: Record<string, string> = { 'Content-Type': type, ...(c === undefined ? {} : { Cookie: c }) };
        expectPageAnswer(await call(devicePage, restEvent({ method: 'POST', resource: '/device', headers, body, sourceIp: ip })));
      }),
      { numRuns: 150 },
    );
  });

  it('GET /device and GET /device/resume', async () => {
    await fc.assert(
      fc.asyncProperty(userCode, interactionId, cookie, async (code, id, c) => {
        const headers: Record<string, string> = c === undefined ? {} : { Cookie: c };
        expectPageAnswer(await call(devicePage, restEvent({ method: 'GET', resource: '/device', headers, query: { user_code: code } })));
        expectPageAnswer(await call(resume, restEvent({ method: 'GET', resource: '/device/resume', headers, query: { interaction: id } })));
      }),
      { numRuns: 100 },
    );
  });
});
