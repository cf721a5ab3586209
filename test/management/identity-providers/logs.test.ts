import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Every line the service can write, DEBUG included: set before any module loads the logger
// (see test/http/logs.test.ts).
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
});

const { captureLogLines, captureStdout } = await import('../../support/service/capture-stdout.ts');
const { identityProvidersFixture, providerBody } = await import('../../support/management/identity-providers-fixture.ts');

let fx: Awaited<ReturnType<typeof identityProvidersFixture>>;
beforeAll(async () => {
  await captureStdout(async () => {
    fx = await identityProvidersFixture();
  });
});
afterAll(async () => fx?.stop());

describe('Identity provider logs (docs/federation.md "Identity providers": the client secret is write-only)', () => {
  it('no client secret, nor its sealed form, reaches a log line on create, change, refusal or failure', async () => {
    const secret = 'Idp-secret-never-logged-4471';
    const base = '/tenants/00000000-0000-7000-8000-000000000001/identity-providers';
    let id = '';
    const { raw, lines } = await captureLogLines(async () => {
      const created = await fx.call('POST', base, { body: providerBody({ client_secret: secret }) });
      expect(created.status).toBe(201);
      id = created.body.id;
      expect((await fx.call('PATCH', `${base}/${id}`, { body: { client_secret: `${secret}-2` } })).status).toBe(200);
      expect((await fx.call('PATCH', `${base}/${id}`, { body: { client_secret: `${secret}\u0007` } })).status).toBe(400);
      expect(
        (await fx.call('POST', base, { body: providerBody({ client_secret: secret, issuer: 'http://idp.example.com' }) })).status,
      ).toBe(400);
      expect((await fx.call('POST', base, { body: `{"provider_name":"x","client_secret":"${secret}",` })).status).toBe(400);
    });
    expect(lines.filter((l) => l.message === 'request').length).toBeGreaterThanOrEqual(5);
    const item = await fx.providerItem('00000000-0000-7000-8000-000000000001', id);
    expect(typeof item?.client_secret_sealed).toBe('string');
    expect(raw).not.toContain(secret);
    expect(raw).not.toContain(String(item!.client_secret_sealed));
  });
});
