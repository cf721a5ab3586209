import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#shared/routes/route-table.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';

/**
 * A missing field says `is required`, on every endpoint, never valibot's own
 * wording ("Invalid key: Expected ... but received undefined").
 */
let svc: TestService;
let admin: string;
beforeAll(async () => {
  svc = await startTestService();
  admin = await svc.managementToken();
});
afterAll(async () => svc?.stop());

const NOBODY = '019b0000-0000-7000-8000-00000000beef';

async function send(method: string, path: string, body: unknown) {
  const concrete = path.replace(/\{[a-z_]+\}/g, NOBODY);
  const authorization = concrete.startsWith('/identity/') ? `Bearer ${admin}` : basicAuth(svc.clientId, svc.clientSecret);
  const res = await fetch(`${svc.url}${concrete}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  // An HTML answer is a page's (/authorize answers errors before the redirect URI as a page, docs/contract.md
  // §7.8); a 400 that is not invalid_request (unauthorized_client at /device_code) is about no field.
  if (/^text\/html/.test(res.headers.get('content-type') ?? '')) return { status: res.status, message: '(html page)' };
  const parsed = text ? (JSON.parse(text) as { code?: string; message?: string }) : {};
  return { status: res.status, message: parsed.code && parsed.code !== 'invalid_request' ? `(${parsed.code})` : (parsed.message ?? '') };
}

describe('a missing field is "is required"', () => {
  it('on every route that takes a body: an empty object is either accepted or refused naming a field "is required"', async () => {
    const refused: string[] = [];
    // Hosted pages (functions/pages/) and POST /authorize take browser forms and answer HTML; their
    // own tests cover them (test/oauth/authorize-security.test.ts: a missing client_id is a page).
    for (const { method, path, handler } of ROUTES) {
      if (method === 'GET' || handler.startsWith('functions/pages/') || handler === 'functions/oauth/authorize') continue;
      const res = await send(method, path, {});
      if (res.status !== 400 || res.message.startsWith('(')) continue;
      refused.push(`${method} ${path}`);
      expect(res.message, `${method} ${path}`).toMatch(/^body\.[a-z_.0-9]+: is required/);
    }
    expect(refused.length).toBeGreaterThanOrEqual(12);
  });

  it.each([
    ['POST', '/token', {}, 'body.grant_type: is required'],
    ['POST', '/tokeninfo', {}, 'body.token: is required'],
    ['POST', '/introspect', {}, 'body.token: is required'],
    ['POST', '/revoke', {}, 'body.token: is required'],
    ['POST', '/identity/v1/clients', {}, 'body.client_name: is required'],
    ['POST', '/identity/v1/clients/{client_id}/resources', {}, 'body.resources: is required'],
    ['DELETE', '/identity/v1/clients/{client_id}/permissions', {}, 'body.permissions: is required'],
    [
      'POST',
      '/identity/v1/clients/{client_id}/permissions',
      { permissions: [{ scopes: [] }] },
      'body.permissions.0.resource_id: is required',
    ],
    ['POST', '/identity/v1/resources', {}, 'body.resource_type: is required'],
    ['POST', '/identity/v1/resources/{resource_id}/scopes', {}, 'body.scope_name: is required'],
    ['DELETE', '/identity/v1/resources/{resource_id}/clients', {}, 'body.clients: is required'],
  ])('%s %s %j → %s', async (method, path, body, message) => {
    expect(await send(method, path, body)).toEqual({ status: 400, message });
  });

  it('client_credentials without an audience names it the same way', async () => {
    const res = await send('POST', '/token', { grant_type: 'client_credentials' });
    expect(res).toEqual({ status: 400, message: 'body.audience: is required (or resource, RFC 8707).' });
  });
});
