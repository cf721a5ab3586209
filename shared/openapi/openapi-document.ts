import type * as v from 'valibot';
import type { HandlerSpec } from '../http/http-handler.ts';
import type { ResponseBody, Responses } from '../http/response-spec.ts';
import { routeGroup } from '../routes/function-groups.ts';
import { MANAGEMENT_SCOPES } from '../routes/management-scopes.ts';
import type { Route } from '../routes/route.ts';
import { listJsonSchema, recordJsonSchema } from './collection-json-schema.ts';
import { type JsonSchema, jsonSchemaOf } from './valibot-json-schema.ts';

// One piece: a single pass over the route table, whose parts (operations, parameters, bodies,
// responses, security) share the operation ids, tags and error components built here (docs/openapi.md).

/** What the generator reads of a handler: the spec it was built with (DocumentedHandler). */
export type RouteSpec = HandlerSpec<v.GenericSchema | undefined, v.GenericSchema | undefined, v.GenericSchema | undefined>;

export interface DocumentInput {
  readonly routes: readonly Route[];
  /** The handler spec of a route; `undefined` when its handler declares none. */
  readonly specOf: (route: Route) => RouteSpec | undefined;
  readonly version: string;
  /** The stage's base URL (the issuer); left out when unknown (built at bundling time). */
  readonly serverUrl?: string;
}

type Json = Record<string, unknown>;

const MANAGEMENT_PREFIX = '/identity/v1/';
const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';
const HTML_TYPE = 'text/html';

/** Tags of the routes outside the management API, by their handler folder (`functions/<folder>/...`). */
const FOLDER_TAGS: Readonly<Record<string, string>> = {
  oauth: 'OAuth 2.0 / OIDC',
  pages: 'Hosted pages',
  health: 'Health',
  docs: 'API documentation',
};

/**
 * The OpenAPI 3.1 document of the route table (docs/openapi.md): every route with its security
 * requirement (docs/contract.md §4: the management API's scope on an OAuth 2.0 client-credentials scheme,
 * client authentication on the OAuth endpoints), path and query parameters and request bodies from
 * the handler's valibot schemas, success responses from its `responses`, and the error shapes of
 * docs/contract.md §2. Generated, never written: a route declared the usual way (a row in shared/routes/
 * and a handler built on `httpHandler`/`oauthHandler`/`managementHandler`) documents itself.
 */
export function buildOpenApiDocument(input: DocumentInput): Json {
  const schemas: Record<string, JsonSchema> = {
    Error: errorSchema(false),
    OAuthError: errorSchema(true),
  };
  const paths: Record<string, Record<string, Json>> = {};
  const tags = new Map<string, string>();
  const operationIds = operationIdsOf(input.routes);
  const scopes = new Set<string>(MANAGEMENT_SCOPES);

  for (const route of input.routes) {
    const spec = input.specOf(route) ?? {};
    const tag = tagOf(route);
    tags.set(tag, tag);
    if (route.auth.type === 'bearer' && route.auth.scope) scopes.add(route.auth.scope);
    const operation: Json = {
      tags: [tag],
      operationId: operationIds.get(route),
      summary: summaryOf(route),
      description: descriptionOf(route, spec),
      security: securityOf(route, spec),
      parameters: [...pathParameters(route, spec), ...queryParameters(spec)],
      ...(spec.body ? { requestBody: requestBody(route, spec) } : {}),
      responses: { ...successResponses(route, spec, schemas), ...errorResponses(route, spec) },
    };
    const byMethod = paths[route.path] ?? {};
    byMethod[route.method.toLowerCase()] = operation;
    paths[route.path] = byMethod;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Identity service',
      version: input.version,
      description:
        'OAuth 2.0 / OpenID Connect authorization server and management API. Generated from the route table and the ' +
        'valibot schemas of each handler (docs/openapi.md).',
    },
    ...(input.serverUrl ? { servers: [{ url: input.serverUrl }] } : {}),
    tags: [...tags.keys()].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      responses: ERROR_RESPONSES,
      securitySchemes: securitySchemes([...scopes].sort()),
    },
  };
}

/** Routes whose handler declares no success response: each would be documented with errors only. */
export function undocumentedRoutes(routes: readonly Route[], specOf: (route: Route) => RouteSpec | undefined): string[] {
  return routes
    .filter((route) => {
      const spec = specOf(route);
      return !spec || (!spec.page && !spec.responses);
    })
    .map((route) => `${route.method} ${route.path} (${route.handler})`);
}

function tagOf(route: Route): string {
  if (route.path.startsWith(MANAGEMENT_PREFIX)) {
    const segment = route.path.slice(MANAGEMENT_PREFIX.length).split('/')[0]!;
    return `Management: ${segment.replaceAll(/[-_]/g, ' ')}`;
  }
  if (routeGroup(route) === 'health') return FOLDER_TAGS.health!;
  const folder = route.handler.split('/')[1] ?? '';
  return FOLDER_TAGS[folder] ?? folder;
}

const baseName = (route: Route) => route.handler.slice(route.handler.lastIndexOf('/') + 1);

/** The handler's name (`get-user`), with the method when one handler serves several methods, with the path when still ambiguous. */
function operationIdsOf(routes: readonly Route[]): Map<Route, string> {
  const count = (key: (r: Route) => string) => {
    const n = new Map<string, number>();
    for (const r of routes) n.set(key(r), (n.get(key(r)) ?? 0) + 1);
    return n;
  };
  const byName = count(baseName);
  const withMethod = (r: Route) => `${baseName(r)}-${r.method.toLowerCase()}`;
  const byNameMethod = count(withMethod);
  return new Map(
    routes.map((r) => {
      if (byName.get(baseName(r)) === 1) return [r, baseName(r)];
      if (byNameMethod.get(withMethod(r)) === 1) return [r, withMethod(r)];
      return [r, `${withMethod(r)}${r.path.replaceAll(/[^A-Za-z0-9]+/g, '-').replace(/-$/, '')}`];
    }),
  );
}

function summaryOf(route: Route): string {
  const words = baseName(route).replaceAll('-', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function descriptionOf(route: Route, spec: RouteSpec): string {
  const auth = route.auth;
  const lines = [`Handler: \`${route.handler}\`.`];
  if (auth.type === 'bearer' && auth.scope) {
    lines.push(`Scope: \`${auth.scope}\` (docs/contract.md §4).`);
    if (auth.self) lines.push(`Or the user's own access token, when \`${auth.self}\` is the token's \`sub\` (docs/contract.md §7.6).`);
  } else if (auth.type === 'bearer') lines.push('Any valid access token of this service.');
  else if (spec.bearerToken) lines.push('Bearer access token of the user (OIDC Core §5.3).');
  else if (auth.type === 'client')
    lines.push(
      'Client authentication (RFC 6749 §2.3), the method the client registered (docs/client-authentication.md): `client_secret_basic`, `client_secret_post`, `private_key_jwt` (`client_assertion_type` and `client_assertion`, RFC 7523 §2.2), or a public client’s `client_id`.',
    );
  if (route.throttle) lines.push(`Throttle: ${route.throttle.rateLimit} requests/s, burst ${route.throttle.burstLimit}.`);
  return lines.join(' ');
}

function securityOf(route: Route, spec: RouteSpec): Json[] {
  const auth = route.auth;
  if (auth.type === 'none') return [];
  if (auth.type === 'bearer') {
    if (!auth.scope) return [{ bearerToken: [] }];
    return [{ managementApi: [auth.scope] }, ...(auth.self ? [{ bearerToken: [] }] : [])];
  }
  if (spec.bearerToken) return [{ bearerToken: [] }];
  // `{}`: client_secret_post, private_key_jwt and public clients authenticate in the body, not in a header.
  return [{ clientSecretBasic: [] }, {}];
}

function securitySchemes(scopes: readonly string[]): Json {
  return {
    managementApi: {
      type: 'oauth2',
      description:
        "An access token whose `aud` is the management API's identifier and whose `scope` holds the route's scope (docs/contract.md §4).",
      flows: { clientCredentials: { tokenUrl: '/token', scopes: Object.fromEntries(scopes.map((s) => [s, s])) } },
    },
    bearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token of this service.' },
    clientSecretBasic: {
      type: 'http',
      scheme: 'basic',
      description:
        '`client_id:client_secret` (RFC 6749 §2.3.1). Alternatives in the body: `client_secret_post`, `private_key_jwt` (RFC 7523 §2.2), or a public client’s `client_id`.',
    },
  };
}

const objectSchemaOf = (
  schema: v.GenericSchema | undefined,
): JsonSchema & { properties?: Record<string, JsonSchema>; required?: string[] } =>
  (schema ? jsonSchemaOf(schema) : {}) as JsonSchema & { properties?: Record<string, JsonSchema>; required?: string[] };

/** Parameters arrive as strings: an untyped one (a grammar parsed by a transform) is documented as one. */
const asParameterSchema = (s: JsonSchema | undefined): JsonSchema => {
  const o = (s ?? {}) as Json;
  return o.type || o.anyOf || o.enum ? (o as JsonSchema) : ({ type: 'string', ...o } as JsonSchema);
};

function pathParameters(route: Route, spec: RouteSpec): Json[] {
  const declared = objectSchemaOf(spec.path).properties ?? {};
  return [...route.path.matchAll(/\{([a-z_]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: asParameterSchema(declared[name!]),
  }));
}

function queryParameters(spec: RouteSpec): Json[] {
  const query = objectSchemaOf(spec.query);
  const required = new Set(query.required ?? []);
  return Object.entries(query.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema as Json;
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(description ? { description } : {}),
      schema: asParameterSchema(rest as JsonSchema),
    };
  });
}

/**
 * The body's media types (docs/contract.md §2): hosted pages take their forms; the OAuth endpoints and
 * the routes whose client authenticates itself take form always and JSON too; the management
 * API takes JSON.
 */
function bodyTypes(route: Route, spec: RouteSpec): string[] {
  if (spec.page) return [FORM_TYPE];
  if (spec.oauth || route.auth.type === 'client') return [FORM_TYPE, JSON_TYPE];
  return [JSON_TYPE];
}

function requestBody(route: Route, spec: RouteSpec): Json {
  const schema = objectSchemaOf(spec.body);
  return {
    required: (schema.required?.length ?? 0) > 0,
    content: Object.fromEntries(bodyTypes(route, spec).map((type) => [type, { schema }])),
  };
}

function successResponses(route: Route, spec: RouteSpec, schemas: Record<string, JsonSchema>): Json {
  const declared: Responses = spec.responses ?? (spec.page ? { 200: { kind: 'html' } } : {});
  return Object.fromEntries(Object.entries(declared).map(([status, body]) => [status, responseOf(Number(status), body!, schemas, route)]));
}

function responseOf(status: number, body: ResponseBody, schemas: Record<string, JsonSchema>, route: Route): Json {
  const described = (fallback: string) => ('description' in body && body.description) || fallback;
  switch (body.kind) {
    case 'json':
      return { description: described(statusText(status)), content: { [JSON_TYPE]: { schema: jsonSchemaOf(body.schema) } } };
    case 'record':
    case 'list': {
      const name = body.collection.name;
      schemas[`${name}.record`] ??= recordJsonSchema(body.collection);
      const ref = { $ref: `#/components/schemas/${name}.record` } as JsonSchema;
      if (body.kind === 'record') return { description: statusText(status), content: { [JSON_TYPE]: { schema: ref } } };
      schemas[`${name}.list`] ??= listJsonSchema(ref);
      return {
        description: 'A page of the list (docs/contract.md §3)',
        content: { [JSON_TYPE]: { schema: { $ref: `#/components/schemas/${name}.list` } } },
      };
    }
    case 'empty':
      return { description: described(status === 204 ? 'No content' : `${statusText(status)}, empty body`) };
    case 'html':
      return { description: described('An HTML page'), content: { [HTML_TYPE]: { schema: { type: 'string' } } } };
    case 'redirect':
      return {
        description: described('Redirect'),
        headers: { Location: { required: true, schema: { type: 'string', format: 'uri-reference' } } },
      };
    case 'file':
      return {
        description: `A file of ${route.path}`,
        content: Object.fromEntries(body.contentTypes.map((t) => [t, { schema: { type: 'string' } }])),
      };
  }
}

const statusText = (status: number) => (status === 201 ? 'Created' : 'OK');

/** The error body of docs/contract.md §2; on OAuth endpoints also RFC 6749 §5.2's `error` and `error_description`. */
function errorSchema(oauth: boolean): JsonSchema {
  const base: Json = {
    code: { type: 'string', description: 'docs/contract.md §2, e.g. `invalid_request`, `not_found`.' },
    message: { type: 'string', description: 'Names the field or parameter at fault; never echoes a request value.' },
  };
  const oauthMembers: Json = {
    error: { type: 'string', description: 'RFC 6749 §5.2: the same value as `code`.' },
    error_description: { type: 'string' },
  };
  return {
    type: 'object',
    required: oauth ? ['code', 'message', 'error', 'error_description'] : ['code', 'message'],
    properties: oauth ? { ...base, ...oauthMembers } : base,
  } as JsonSchema;
}

const retryAfter = { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } };

/**
 * Shared error answers, referenced by status, each also as `OAuth<name>` for the OAuth endpoints.
 * Answers that API Gateway (infra/constructs/gateway-responses.ts: its throttle, 413, 504, a
 * crashed function's 502) and the WAF (infra/constructs/edge-protection.ts: 403, 429) give before
 * a function runs have one body for every route, `{code, message}` with RFC 6749's `error` and
 * `error_description` beside them, so on the OAuth endpoints they satisfy the `OAuth` variants too.
 */
const ERROR_RESPONSES: Json = Object.fromEntries(
  (
    [
      ['BadRequest', 'Invalid input: the message names the field or parameter (`invalid_request`).', {}],
      [
        'Unauthorized',
        'Missing or invalid credentials (`unauthorized`, `invalid_client`, `invalid_token`).',
        { 'WWW-Authenticate': { schema: { type: 'string' } } },
      ],
      [
        'Forbidden',
        'Authenticated but not allowed (`forbidden`, `insufficient_scope`), or refused by the web application firewall (`forbidden`, docs/deploy.md "WAF").',
        {},
      ],
      ['NotFound', 'No such record, or not visible to the caller (`not_found`).', {}],
      ['Conflict', 'Duplicate, concurrent modification, or a link that exists or is missing (`conflict`).', {}],
      [
        'TooManyRequests',
        'Throttled (`too_many_requests`): by API Gateway, by the web application firewall’s per-address rate rules, or by the service (the login lockout, docs/contract.md §7.3).',
        retryAfter,
      ],
      [
        'Error',
        'Any other error (405 `method_not_allowed`, 413, 500 `internal_error`, 501, 503 `service_unavailable` with `Retry-After`; from API Gateway 502 and 504). On the OAuth endpoints every one of them also carries `error` and `error_description`.',
        {},
      ],
    ] as const
  ).flatMap(([name, description, headers]) => [
    [name, { description, headers, content: { [JSON_TYPE]: { schema: { $ref: '#/components/schemas/Error' } } } }],
    [`OAuth${name}`, { description, headers, content: { [JSON_TYPE]: { schema: { $ref: '#/components/schemas/OAuthError' } } } }],
  ]),
);

/** The error statuses a route can answer, by what it takes and how it authenticates. */
function errorResponses(route: Route, spec: RouteSpec): Json {
  if (spec.page) {
    const html = { [HTML_TYPE]: { schema: { type: 'string' } } };
    const page = { description: 'An HTML error page (docs/contract.md §7.8)', content: html };
    // API Gateway and the WAF answer before the page's function runs, in the API's JSON shape.
    const orJson = (name: string) => {
      const shared = ERROR_RESPONSES[name] as Json;
      return {
        ...shared,
        description: `${shared.description} From the page itself, an HTML error page (docs/contract.md §7.8).`,
        content: { ...html, ...(shared.content as Json) },
      };
    };
    return { 400: page, 403: orJson('Forbidden'), 404: page, 429: orJson('TooManyRequests'), default: orJson('Error') };
  }
  const prefix = spec.oauth ? 'OAuth' : '';
  const ref = (name: string) => ({ $ref: `#/components/responses/${prefix}${name}` });
  const out: Json = {};
  const takesInput = spec.body || spec.query || spec.path || route.path.includes('{');
  if (takesInput || spec.oauth) out[400] = ref('BadRequest');
  if (route.auth.type !== 'none') out[401] = ref('Unauthorized');
  out[403] = ref('Forbidden');
  if (route.path.includes('{')) out[404] = ref('NotFound');
  if (route.path.startsWith(MANAGEMENT_PREFIX) && route.method !== 'GET') out[409] = ref('Conflict');
  out[429] = ref('TooManyRequests');
  out.default = ref('Error');
  return out;
}
