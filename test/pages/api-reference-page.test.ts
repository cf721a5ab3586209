import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_CSP } from '#shared/openapi/reference-page.ts';
import { launchChromium } from '../support/service/chromium.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';

/** `/docs` in headless Chromium (docs/openapi.md): Swagger UI from the service itself, every route group shown, nothing the CSP blocks. */
describe('GET /docs in Chromium', () => {
  let svc: TestService;
  let browser: Browser;

  beforeAll(async () => {
    svc = await startTestService();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('shows every route group of the document, loads nothing from elsewhere, breaks no CSP rule', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      // Chromium warns once per feature of Permissions-Policy it does not know (docs/security.md).
      if (m.type() === 'error' || /Content Security Policy|Permissions-Policy/i.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    // Every CSP violation of the page becomes a console error, which `problems` collects.
    await page.addInitScript({
      content:
        "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));",
    });

    const res = await page.goto(`${svc.url}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toBe(REFERENCE_CSP);
    expect(res?.headers()['x-content-type-options']).toBe('nosniff');
    // Swagger UI renders the whole document in the page: about 12 s on this 2-core machine under
    // load, over 30 s while the rest of the suite runs beside it. A wait, not a timing assertion.
    await page.waitForSelector('.opblock-tag', { timeout: 90_000 });

    const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as { tags: { name: string }[]; paths: Record<string, object> };
    const shown = await page.$$eval('.opblock-tag', (els) => els.map((e) => e.getAttribute('data-tag')));
    expect(shown.sort()).toEqual(doc.tags.map((t) => t.name).sort());
    expect(shown).toEqual(
      expect.arrayContaining(['OAuth 2.0 / OIDC', 'Management: users', 'Management: clients', 'Health', 'Hosted pages']),
    );
    // Every operation is on the page (Swagger UI renders each tag's operations expanded by default).
    const operations = await page.$$eval('.opblock', (els) => els.length);
    const documented = Object.values(doc.paths).reduce((n, byMethod) => n + Object.keys(byMethod).length, 0);
    expect(operations).toBe(documented);
    expect(await page.textContent('.info .title')).toContain('Identity service');

    expect(problems).toEqual([]);
    expect(requests.filter((u) => !u.startsWith(svc.url) && !u.startsWith('data:'))).toEqual([]);
    await page.close();
  }, 120_000);

  it('/docs/ leads to the page at /docs (a 308, as the deployed fallback answers it)', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${svc.url}/docs/`);
    expect(res?.status()).toBe(200);
    expect(page.url()).toBe(`${svc.url}/docs`);
    expect(res?.request().redirectedFrom()?.url()).toBe(`${svc.url}/docs/`);
    await page.waitForSelector('.opblock-tag', { timeout: 90_000 });
    await page.close();
  }, 120_000);
});
