import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeFinder } from '#shared/routes/find-route.ts';
import { matchRoute } from '#shared/routes/match-route.ts';
import { handlerModules, ROUTES } from '#shared/routes/route-table.ts';

describe('route table', () => {
  it('matches a literal path and names its handler', () => {
    const m = matchRoute('GET', '/company/v1/health');
    expect(m).toMatchObject({ kind: 'route', route: { handler: 'functions/health/get-health' } });
  });

  it('extracts and decodes path parameters', () => {
    const m = matchRoute('GET', '/identity/v1/clients/abc%2Dd');
    expect(m).toEqual(expect.objectContaining({ kind: 'route', pathParameters: { client_id: 'abc-d' } }));
  });

  it('prefers literal segments over parameters, as API Gateway does', () => {
    const m = matchRoute('POST', '/identity/v1/clients/123/secret');
    expect(m).toMatchObject({ kind: 'route', route: { handler: 'functions/clients/change-client-secret' } });
  });

  it('answers method_not_allowed with every allowed method of a known path', () => {
    expect(matchRoute('DELETE', '/token')).toEqual({ kind: 'method_not_allowed', allow: ['POST'] });
    const m = matchRoute('POST', '/identity/v1/clients/x');
    expect(m.kind).toBe('method_not_allowed');
    expect(m.kind === 'method_not_allowed' && [...m.allow].sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH', 'PUT']);
  });

  it('serves HEAD with the GET row of a path (RFC 9110 §9.3.2), and nowhere GET is not served', () => {
    expect(matchRoute('HEAD', '/.well-known/openid-configuration')).toMatchObject({ kind: 'route', route: { method: 'GET' } });
    expect(matchRoute('HEAD', '/identity/v1/clients/x')).toMatchObject({
      kind: 'route',
      route: { method: 'GET', handler: 'functions/clients/get-client' },
      pathParameters: { client_id: 'x' },
    });
    expect(matchRoute('HEAD', '/token')).toEqual({ kind: 'method_not_allowed', allow: ['POST'] });
    const find = routeFinder(ROUTES);
    expect(find('HEAD', '/identity/v1/clients/{client_id}')).toMatchObject({ method: 'GET', handler: 'functions/clients/get-client' });
    expect(() => find('HEAD', '/token')).toThrow();
  });

  it('redirects /docs/ to /docs by a reference relative to the request, which keeps a stage prefix (RFC 3986 §5.2)', () => {
    for (const method of ['GET', 'HEAD']) expect(matchRoute(method, '/docs/')).toEqual({ kind: 'redirect', location: '../docs' });
    expect(new URL('../docs', 'https://id.example.com/docs/').pathname).toBe('/docs');
    expect(new URL('../docs', 'https://abc.execute-api.eu-west-1.amazonaws.com/dev/docs/').pathname).toBe('/dev/docs');
    // Only the listed paths: an API path with a slash stays unknown.
    for (const path of ['/openapi.json/', '/identity/v1/clients/', '/docs//']) expect(matchRoute('GET', path).kind, path).toBe('not_found');
  });

  it('answers not_found for an unknown path, a trailing segment, or a regex-like path', () => {
    expect(matchRoute('GET', '/nope')).toEqual({ kind: 'not_found' });
    expect(matchRoute('GET', '/company/v1/health/x')).toEqual({ kind: 'not_found' });
    expect(matchRoute('GET', '/.well-known/jwksXjson')).toEqual({ kind: 'not_found' });
  });

  it('has no duplicate method+path and every management route names a scope (registration authenticates its client instead)', () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    // docs/contract.md §6: `/users/register` is "client authentication, no bearer".
    const register = ROUTES.find((r) => r.method === 'POST' && r.path === '/identity/v1/users/register');
    expect(register?.auth).toEqual({ type: 'client' });
    for (const r of ROUTES.filter((r) => r.path.startsWith('/identity/v1/') && r !== register)) {
      expect(r.auth, `${r.method} ${r.path}`).toMatchObject({ type: 'bearer', scope: expect.stringMatching(/^[a-z_]+:[a-z_]+$/) });
    }
  });

  it('lists one handler module per distinct handler', () => {
    const modules = handlerModules();
    expect(new Set(modules).size).toBe(modules.length);
    expect(modules).toContain('functions/oauth/token');
  });

  it('points every route at a handler module that exists', () => {
    const missing = handlerModules().filter((m) => !existsSync(resolve(import.meta.dirname, '../..', `${m}.ts`)));
    expect(missing).toEqual([]);
  });
});
