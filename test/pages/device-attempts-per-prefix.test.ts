import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserBinding, formToken } from '#shared/browser/browser-responses.ts';
import type { HttpResponse } from '#shared/http/response.ts';
import { runWithRuntime } from '#shared/runtime.ts';
import { type PagesFixture, pagesFixture } from '../support/browser/pages-fixture.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';

/**
 * The `/device` page's limit on wrong user codes (RFC 8628 §5.1, docs/browser-flows.md "Device
 * flow") counts an IPv6 source by its /64 and an IPv4-mapped address as its IPv4 address. The
 * local server binds 127.0.0.1 and takes `sourceIp` from the socket, so no request over it can
 * come from two IPv6 addresses: the POSTs go to the page's Lambda handler with the gateway event
 * the local server builds (infra/local/proxy-event.ts), on the running service's runtime.
 */
type Handler = (e: APIGatewayProxyEvent, c: Context) => Promise<HttpResponse>;
let fx: PagesFixture;
let devicePage: Handler;
const csrf = { cookie: '', token: '' };

beforeAll(async () => {
  fx = await pagesFixture();
  devicePage = ((await import('../../functions/pages/device.ts')) as { handler: Handler }).handler;
  const { runtime } = fx.svc.stack;
  csrf.cookie = browserBinding({}, false).value;
  csrf.token = await formToken(() => runtime.serviceSecret('hosted-pages'), 'device', csrf.cookie);
});
afterAll(async () => {
  await fx?.stop();
});

/** POST /device from `sourceIp` with a well-formed code that no device holds. */
const wrongCode = (sourceIp: string) =>
  runWithRuntime(fx.svc.stack.runtime, () =>
    devicePage(
      restEvent({
        method: 'POST',
        resource: '/device',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: `csrf=${csrf.cookie}` },
        body: new URLSearchParams({ csrf_token: csrf.token, user_code: 'BCDF-GHJK' }).toString(),
        sourceIp,
      }),
      lambdaContext,
    ),
  );

describe('wrong user codes are counted per IPv6 /64 (RFC 8628 §5.1)', () => {
  it('addresses of one /64 share the count of 5; another /64 has its own', async () => {
    for (let i = 1; i <= 5; i++) expect((await wrongCode(`2001:db8:1:2::${i.toString(16)}`)).statusCode, `attempt ${i}`).toBe(400);
    const refused = await wrongCode('2001:db8:1:2:ffff:ffff:ffff:fffe');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['Retry-After'])).toBeGreaterThan(0);
    expect(refused.body).toContain('Too many wrong codes');
    expect((await wrongCode('2001:DB8:1:2:0:0:0:77')).statusCode).toBe(429);
    expect((await wrongCode('2001:db8:1:3::1')).statusCode).toBe(400);
  });

  it('an IPv4-mapped address is its IPv4 address; IPv4 neighbours are counted apart', async () => {
    for (let i = 0; i < 5; i++) expect((await wrongCode('::ffff:198.51.100.7')).statusCode).toBe(400);
    expect((await wrongCode('198.51.100.7')).statusCode).toBe(429);
    expect((await wrongCode('198.51.100.8')).statusCode).toBe(400);
    const { Items } = await fx.svc.stack.runtime.db.send(new ScanCommand({ TableName: fx.svc.stack.tableName }));
    const counters = Items!.filter((i) => String(i.PK).startsWith('USER_CODE_ATTEMPTS#'));
    // No address or prefix is stored, only its hash.
    expect(JSON.stringify(counters)).not.toMatch(/198\.51|2001:db8/i);
  });
});
