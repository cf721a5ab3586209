import { Validator } from '@seriousme/openapi-schema-validator';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { html, json, redirect } from '#shared/http/response-spec.ts';
import { buildOpenApiDocument, type RouteSpec, undocumentedRoutes } from '#shared/openapi/openapi-document.ts';
import type { Route } from '#shared/routes/route.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';
import { WAF_ERRORS } from '../../infra/constructs/edge-protection.ts';
import { GATEWAY_ERRORS, gatewayErrorBody } from '../../infra/constructs/gateway-responses.ts';
import { loadRouteSpecs } from '../../infra/openapi/route-specs.ts';

type Json = Record<string, any>;

describe('the OpenAPI document', () => {
  let specOf: (route: Route) => RouteSpec | undefined;
  let doc: Json;

  beforeAll(async () => {
    specOf = await loadRouteSpecs();
    doc = buildOpenApiDocument({ routes: ROUTES, specOf, version: '1.2.3' });
  }, 60_000);

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // The validator can fail: a document without `info` or with a bad parameter location is refused.
    const { info: _, ...noInfo } = doc;
    expect((await new Validator().validate(noInfo)).valid).toBe(false);
    const badParam = structuredClone(doc);
    badParam.paths['/identity/v1/users/{user_id}'].get.parameters[0].in = 'body';
    expect((await new Validator().validate(badParam)).valid).toBe(false);
  });

  it('every route of the table declares what it answers', () => {
    expect(undocumentedRoutes(ROUTES, specOf), JSON.stringify(undocumentedRoutes(ROUTES, specOf))).toEqual([]);
  });

  it('names a route whose handler declares no response', () => {
    const bare = {
      method: 'POST',
      path: '/new-thing',
      handler: 'functions/new/thing',
      auth: { type: 'none' },
      access: { kms: [] },
    } as const;
    const noSpec = { ...bare, path: '/no-spec', handler: 'functions/new/no-spec' };
    const specs = new Map<string, RouteSpec | undefined>([
      [bare.handler, httpHandler({ body: v.object({ a: v.string() }) }, async () => ({ statusCode: 200, headers: {}, body: '' })).spec],
    ]);
    expect(undocumentedRoutes([bare, noSpec], (r) => specs.get(r.handler))).toEqual([
      'POST /new-thing (functions/new/thing)',
      'POST /no-spec (functions/new/no-spec)',
    ]);
  });

  it('holds every route with its operation, tag and security requirement (docs/contract.md §4)', () => {
    const ids = new Set<string>();
    for (const route of ROUTES) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()] as Json | undefined;
      expect(op, `${route.method} ${route.path}`).toMatchObject({
        operationId: expect.any(String),
        tags: [expect.any(String)],
        security: expect.any(Array),
      });
      expect(ids.has(op!.operationId), `unique operationId ${op!.operationId}`).toBe(false);
      ids.add(op!.operationId);
      expect(op!.tags).toHaveLength(1);
      const auth = route.auth;
      if (auth.type === 'none') expect(op!.security).toEqual([]);
      else if (auth.type === 'bearer' && auth.scope) expect(op!.security[0]).toEqual({ managementApi: [auth.scope] });
      else if (auth.type === 'bearer') expect(op!.security).toEqual([{ bearerToken: [] }]);
      else expect(op!.security.length).toBeGreaterThan(0);
    }
    const count = Object.values(doc.paths as Json).reduce((n, byMethod) => n + Object.keys(byMethod).length, 0);
    expect(count).toBe(ROUTES.length);
    expect(Object.keys(doc.components.securitySchemes.managementApi.flows.clientCredentials.scopes)).toContain('read:users');
  });

  it('documents self routes as the scope or the user’s own token (docs/contract.md §7.6)', () => {
    expect(doc.paths['/identity/v1/users/{user_id}/password'].put.security).toEqual([
      { managementApi: ['update:users'] },
      { bearerToken: [] },
    ]);
  });

  it('documents client authentication on the OAuth endpoints and the bearer token at /userinfo', () => {
    expect(doc.paths['/token'].post.security).toEqual([{ clientSecretBasic: [] }, {}]);
    expect(doc.paths['/userinfo'].get.security).toEqual([{ bearerToken: [] }]);
    expect(doc.components.securitySchemes.clientSecretBasic).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  it('takes path parameters and list parameters from the handler schemas (docs/contract.md §3)', () => {
    const op = doc.paths['/identity/v1/users/{user_id}/roles'].get as Json;
    const params = Object.fromEntries(op.parameters.map((p: Json) => [`${p.in}:${p.name}`, p]));
    expect(params['path:user_id']).toMatchObject({ required: true, schema: { type: 'string', format: 'uuid' } });
    for (const name of ['offset', 'limit', 'fields', 'expand', 'q', 'sort', 'total_count', 'cursor']) {
      expect(params[`query:${name}`], name).toMatchObject({ in: 'query', required: false, schema: { type: 'string' } });
    }
    expect(op.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/user-roles.list' });
    expect(doc.components.schemas['user-roles.list'].required).toEqual(['count', 'has_more', 'limit', 'offset', 'items']);
  });

  it('documents request bodies: JSON on the management API, form and JSON on the OAuth endpoints', () => {
    const create = doc.paths['/identity/v1/clients'].post.requestBody as Json;
    expect(Object.keys(create.content)).toEqual(['application/json']);
    expect(create.content['application/json'].schema.properties.client_name).toMatchObject({ type: 'string' });
    expect(create.content['application/json'].schema.additionalProperties).toBe(false);
    const token = doc.paths['/token'].post.requestBody as Json;
    expect(Object.keys(token.content)).toEqual(['application/x-www-form-urlencoded', 'application/json']);
    expect(token.content['application/x-www-form-urlencoded'].schema.required).toEqual(['grant_type']);
  });

  it('documents the error shapes: {code, message}, and RFC 6749 members on OAuth endpoints (docs/contract.md §2)', () => {
    expect(doc.paths['/identity/v1/users/{user_id}'].get.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
    expect(doc.paths['/token'].post.responses['400']).toEqual({ $ref: '#/components/responses/OAuthBadRequest' });
    expect(doc.components.schemas.Error.required).toEqual(['code', 'message']);
    expect(doc.components.schemas.OAuthError.required).toEqual(['code', 'message', 'error', 'error_description']);
    expect(doc.paths['/identity/v1/users/{user_id}'].delete.responses['204']).toEqual({ description: 'No content' });
  });

  it('documents every error of an OAuth endpoint with the RFC 6749 members, the edge answers too', () => {
    // The gateway and WAF bodies are one static body for every route and carry all four members
    // (infra/constructs/gateway-responses.ts), so an OAuth endpoint's 403, 429 and default can say so.
    for (const [path, method] of [
      ['/token', 'post'],
      ['/userinfo', 'get'],
      ['/introspect', 'post'],
    ] as const) {
      const r = doc.paths[path][method].responses;
      expect(r['403'], path).toEqual({ $ref: '#/components/responses/OAuthForbidden' });
      expect(r['429'], path).toEqual({ $ref: '#/components/responses/OAuthTooManyRequests' });
      expect(r.default, path).toEqual({ $ref: '#/components/responses/OAuthError' });
    }
    const clients = doc.paths['/identity/v1/clients'].post.responses;
    expect([clients['403'], clients['429'], clients.default]).toEqual(
      ['Forbidden', 'TooManyRequests', 'Error'].map((n) => ({ $ref: `#/components/responses/${n}` })),
    );
    const oauthError = doc.components.schemas.OAuthError;
    for (const e of [...GATEWAY_ERRORS, ...Object.values(WAF_ERRORS)]) {
      const body = JSON.parse(gatewayErrorBody(e, 'https://docs.example/errors'));
      for (const member of oauthError.required) expect(typeof body[member], `${e.code} ${member}`).toBe('string');
      expect(
        Object.keys(body).every((k) => k in oauthError.properties),
        e.code,
      ).toBe(true);
    }
  });

  it('documents hosted pages and form bodies by themselves: a new page row needs nothing more', () => {
    // What a browser-flow page adds: rows like these and handlers built the usual way.
    const login: Route = {
      method: 'POST',
      path: '/login',
      handler: 'functions/pages/login',
      auth: { type: 'none' },
      access: { table: 'readwrite', kms: [] },
    };
    const consent: Route = {
      method: 'GET',
      path: '/consent',
      handler: 'functions/pages/consent',
      auth: { type: 'none' },
      access: { table: 'read', kms: [] },
    };
    const deviceCode: Route = {
      method: 'POST',
      path: '/device_code',
      handler: 'functions/oauth/device-code',
      auth: { type: 'client' },
      access: { table: 'readwrite', kms: [] },
    };
    const run = async () => ({ statusCode: 200, headers: {}, body: '' });
    const specs: Record<string, RouteSpec> = {
      [login.handler]: httpHandler(
        {
          page: HOSTED_PAGE,
          body: v.object({ username: v.string(), password: v.string(), csrf_token: v.string() }),
          responses: { 200: html(), 303: redirect() },
        },
        run,
      ).spec,
      [consent.handler]: httpHandler({ page: HOSTED_PAGE, query: v.object({ state: v.optional(v.string()) }) }, run).spec,
      [deviceCode.handler]: httpHandler(
        { oauth: true, body: v.object({ client_id: v.string() }), responses: { 200: json(v.object({ device_code: v.string() })) } },
        run,
      ).spec,
    };
    const pages = buildOpenApiDocument({ routes: [login, consent, deviceCode], specOf: (r) => specs[r.handler], version: '1' });
    const post = pages.paths as Json;
    expect(Object.keys(post['/login'].post.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(post['/login'].post.requestBody.content['application/x-www-form-urlencoded'].schema.required).toEqual([
      'username',
      'password',
      'csrf_token',
    ]);
    expect(post['/login'].post.responses['200'].content).toEqual({ 'text/html': { schema: { type: 'string' } } });
    expect(post['/login'].post.responses['303'].headers.Location.required).toBe(true);
    expect(post['/login'].post.responses['400'].content).toEqual({ 'text/html': { schema: { type: 'string' } } });
    expect(post['/login'].post.tags).toEqual(['Hosted pages']);
    // A page without `responses` is an HTML page.
    expect(post['/consent'].get.responses['200'].content).toEqual({ 'text/html': { schema: { type: 'string' } } });
    expect(post['/consent'].get.parameters).toEqual([{ name: 'state', in: 'query', required: false, schema: { type: 'string' } }]);
    expect(post['/device_code'].post.responses['400']).toEqual({ $ref: '#/components/responses/OAuthBadRequest' });
    expect(undocumentedRoutes([login, consent, deviceCode], (r) => specs[r.handler])).toEqual([]);
  });

  it('tags every route group', () => {
    expect((doc.tags as Json[]).map((t) => t.name).sort()).toEqual([
      'API documentation',
      'Health',
      'Hosted pages',
      'Management: clients',
      'Management: events',
      'Management: groups',
      'Management: resources',
      'Management: roles',
      'Management: tenants',
      'Management: tickets',
      'Management: users',
      'OAuth 2.0 / OIDC',
    ]);
  });
});
