import { describe, expect, it } from 'vitest';
import { clientAuthRouting } from '#shared/http/oauth-handler.ts';
import { OAUTH_ROUTES } from '#shared/routes/oauth-routes.ts';
import type { Route } from '#shared/routes/route.ts';
import { ROUTES } from '#shared/routes/route-table.ts';

/**
 * The OAuth endpoints' pipeline (shared/http/oauth-handler.ts) routes by their rows alone and has
 * no bearer authentication: it must refuse a bearer row instead of serving it unauthenticated.
 */
describe('oauthHandler routing', () => {
  it('finds every OAuth row and nothing of the other areas', () => {
    const routing = clientAuthRouting(OAUTH_ROUTES);
    for (const r of OAUTH_ROUTES) expect(routing.findRoute(r.method, r.path)).toBe(r);
    expect(() => routing.findRoute('GET', '/identity/v1/clients')).toThrow('No route for GET /identity/v1/clients');
  });

  it('leaves the client to the use case: no caller for a none or client rule', async () => {
    const token = OAUTH_ROUTES.find((r) => r.path === '/token')!;
    expect(token.auth).toEqual({ type: 'client' });
    expect(
      await clientAuthRouting(OAUTH_ROUTES).authenticate(token, { authorization: 'Bearer x' }, undefined as never, {}),
    ).toBeUndefined();
  });

  it('refuses to start with a bearer row, naming it', () => {
    const health = ROUTES.find((r) => r.path === '/company/v1/health')!;
    const bearerRow: Route = { ...health, path: '/token/admin' };
    expect(() => clientAuthRouting([...OAUTH_ROUTES, bearerRow])).toThrow('GET /token/admin: bearer authentication needs httpHandler');
  });

  it('serves every route of the functions in functions/oauth/ (they are built with oauthHandler)', () => {
    const oauthFunctionRoutes = ROUTES.filter((r) => r.handler.startsWith('functions/oauth/'));
    expect(oauthFunctionRoutes.length).toBeGreaterThan(10);
    expect(oauthFunctionRoutes.filter((r) => !OAUTH_ROUTES.includes(r))).toEqual([]);
  });
});
