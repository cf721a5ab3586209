import { LogLevelThreshold } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import httpUrlencodeBodyParser from '@middy/http-urlencode-body-parser';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type * as v from 'valibot';
import { isTimeout } from '../aws/dependency-failure.ts';
import { payloadTooLarge, serviceUnavailable } from '../errors.ts';
import { logger } from '../logger.ts';
import { observeInvocation } from '../observability/observe-invocation.ts';
import { routeGroup } from '../routes/function-groups.ts';
import type { Route } from '../routes/route.ts';
import { getRuntime, type Runtime } from '../runtime.ts';
import type { Caller } from './authenticate.ts';
import { rejectRepeatedAuthorization } from './reject-repeated-authorization.ts';
import { renderError, toAppError } from './render-error.ts';
import type { HttpResponse } from './response.ts';
import type { Responses } from './response-spec.ts';
import { securityHeaders } from './security-headers.ts';
import { strictBody } from './strict-body.ts';
import { validate } from './validate.ts';

// One piece: the pipeline's middlewares are ordered against each other (middy runs onError hooks
// last-registered first), so their order and the types they share are read in one place.

/** Bodies above this are refused with 413 before parsing (API Gateway's own limit is 10 MB). */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * How long before the function's timeout a request still running is answered 503 (middy's early
 * timeout): the dependency budgets should end it long before, this is the backstop that keeps
 * a stall from ever reaching the caller as Lambda's timeout (a 500) or API Gateway's 504.
 */
export const TIMEOUT_RESERVE_MS = 300;

/** What middy answers when the function is about to time out: the dependency took the whole budget. */
const functionTimedOut = () => {
  throw serviceUnavailable({ detail: { dependency: 'function', timeout: true } });
};

export interface HandlerSpec<
  B extends v.GenericSchema | undefined,
  Q extends v.GenericSchema | undefined,
  P extends v.GenericSchema | undefined,
> {
  /** OAuth endpoints render RFC 6749 error members and `Cache-Control: no-store` on errors too. */
  oauth?: boolean;
  /**
   * A high-volume endpoint (token, introspection, JWKS, discovery): its successful requests are
   * logged at DEBUG, failures at INFO as everywhere. The INFO line cost ~10 µs of a 30 µs
   * /tokeninfo in process and ≈ $0.20 of CloudWatch ingestion per million requests, and API
   * Gateway's access log already records every request (docs/tokens.md "Logs").
   */
  quietSuccess?: boolean;
  /**
   * A hosted HTML page (docs/contract.md §7.4), `HOSTED_PAGE` (shared/html/hosted-page.ts): errors render as
   * an HTML error page and the security headers keep the page's own Content-Security-Policy
   * instead of the API's deny-all. The page kit comes with the spec, so only the functions that
   * serve pages bundle it.
   */
  page?: PageRendering;
  /**
   * The route checks a bearer token itself although its rule is `client` (`/userinfo`, OIDC Core
   * §5.3): documented as bearer authentication in the OpenAPI document.
   */
  bearerToken?: boolean;
  /**
   * What it answers on success (shared/http/response-spec.ts), for the OpenAPI document. Hosted
   * pages default to `200 text/html`; any other route without it fails the document's test.
   */
  responses?: Responses;
  body?: B;
  query?: Q;
  path?: P;
}

type Out<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

export interface Request<B, Q, P> {
  body: B;
  query: Q;
  path: P;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** The raw body as sent (form or JSON), for endpoints that must see duplicates (RFC 6749 §3.2). */
  rawBody: string | undefined;
  caller: Caller | undefined;
  /** The caller's address as API Gateway saw it (`requestContext.identity.sourceIp`); per-address limits count by it. */
  sourceIp: string;
  route: Route;
  runtime: Runtime;
  requestId: string;
}

type HttpEvent = APIGatewayProxyEvent & { rawBody?: string };

/** How a hosted page answers errors and which security headers it carries (shared/html/hosted-page.ts). */
export interface PageRendering {
  errorPage(status: number, title: string, message: string, headers?: Record<string, string>): HttpResponse;
  securityHeaders(): middy.MiddlewareObj<unknown, HttpResponse>;
}

/** A handler of the pipeline, carrying the spec it was built from (read by the OpenAPI generator). */
export interface DocumentedHandler {
  readonly spec: HandlerSpec<v.GenericSchema | undefined, v.GenericSchema | undefined, v.GenericSchema | undefined>;
}

/**
 * How a pipeline finds the route of an event (its row of the route table) and enforces the route's
 * auth rule. Two exist: the whole table with bearer authentication (table-handler.ts) and the
 * OAuth endpoints' rows, which are public or authenticate their client in the use case
 * (oauth-handler.ts); an OAuth function's bundle carries neither the other areas' rows nor the
 * bearer token verification (docs/benchmarks.md "Token function bundle").
 */
export interface Routing {
  findRoute(method: string, resource: string): Route;
  authenticate(
    route: Route,
    headers: Record<string, string | undefined>,
    runtime: Runtime,
    pathParameters: Record<string, string | undefined>,
  ): Promise<Caller | undefined>;
}

/**
 * The one HTTP pipeline (docs/design.md §1): normalize → size limit → parse → authenticate (the route's
 * rule from the route table) → validate → use case → respond, with one error renderer and security
 * headers on every response. A handler module only wires a use case into this, through
 * `httpHandler` (table-handler.ts) or `oauthHandler` (oauth-handler.ts).
 */
export function httpPipeline<
  B extends v.GenericSchema | undefined = undefined,
  Q extends v.GenericSchema | undefined = undefined,
  P extends v.GenericSchema | undefined = undefined,
>(spec: HandlerSpec<B, Q, P>, run: (req: Request<Out<B>, Out<Q>, Out<P>>) => Promise<HttpResponse>, routing: Routing) {
  const core = async (event: HttpEvent, context: Context): Promise<HttpResponse> => {
    const runtime = getRuntime();
    const route = routing.findRoute(event.httpMethod, event.resource);
    const caller = await routing.authenticate(
      route,
      event.headers as Record<string, string | undefined>,
      runtime,
      event.pathParameters ?? {},
    );
    const req = {
      body: spec.body ? validate(spec.body, event.body ?? {}, 'body') : undefined,
      query: spec.query ? validate(spec.query, queryParameters(event), 'query') : undefined,
      path: spec.path ? validate(spec.path, event.pathParameters ?? {}, 'path') : undefined,
      headers: event.headers as Record<string, string | undefined>,
      rawBody: event.rawBody,
      caller,
      sourceIp: event.requestContext?.identity?.sourceIp ?? 'unknown',
      route,
      runtime,
      requestId: event.requestContext?.requestId ?? context.awsRequestId,
    } as Request<Out<B>, Out<Q>, Out<P>>;
    return run(req);
  };

  const handler = middy<HttpEvent, HttpResponse>(core, { timeoutEarlyInMillis: TIMEOUT_RESERVE_MS, timeoutEarlyResponse: functionTimedOut })
    // First, so it wraps everything: the X-Ray subsegment, 429/503 counts, metrics published when due.
    .use(observeInvocation<HttpEvent, HttpResponse>((event) => functionGroupOf(event, routing)))
    .use(lambdaContextLogging())
    .use(requestLog(spec.quietSuccess ?? false))
    // middy runs onError hooks last-registered first: the renderer must set the error response
    // before the security headers are added to it.
    .use(spec.page ? spec.page.securityHeaders() : securityHeaders())
    .use(errorRenderer(spec.oauth ?? false, spec.page, routing))
    // Before the normalizer, which folds `Authorization` and `authorization` into one entry of
    // multiValueHeaders (the last one's values), and would hide a repeat spelled in two cases.
    .use(rejectRepeatedAuthorization())
    .use(httpHeaderNormalizer())
    .use(bodyLimit())
    .use(strictBody())
    .use(httpJsonBodyParser({ disableContentTypeError: true }))
    .use(httpUrlencodeBodyParser({ disableContentTypeError: true }));
  return Object.assign(handler, { spec } as DocumentedHandler);
}

/** A front door of the pipeline: handlers built with it are routed, and authenticated, by `routing`. */
export function routedBy(routing: Routing) {
  return <
    B extends v.GenericSchema | undefined = undefined,
    Q extends v.GenericSchema | undefined = undefined,
    P extends v.GenericSchema | undefined = undefined,
  >(
    spec: HandlerSpec<B, Q, P>,
    run: (req: Request<Out<B>, Out<Q>, Out<P>>) => Promise<HttpResponse>,
  ) => httpPipeline(spec, run, routing);
}

/**
 * The Lambda context (function, request id, cold start) on every log line of the invocation, and
 * the debug sampling decision refreshed per invocation, as Powertools' `injectLambdaContext` does.
 * What that middleware also does is left out on purpose, about 2 µs per invocation
 * (docs/benchmarks.md): resetting appended keys (nothing appends keys: every line
 * carries its own fields), clearing the log buffer (buffering is not enabled), and logging the
 * event when POWERTOOLS_LOGGER_LOG_EVENT is set (it would write bodies and credentials).
 */
function lambdaContextLogging(): middy.MiddlewareObj<HttpEvent, HttpResponse> {
  return {
    before: (request) => {
      logger.refreshSampleRateCalculation();
      logger.addContext(request.context);
    },
  };
}

/** One structured line per request: ids, route, status and time; never bodies or credentials. */
function requestLog(quietSuccess: boolean): middy.MiddlewareObj<HttpEvent, HttpResponse> {
  const started = new WeakMap<object, number>();
  const done = (request: middy.Request<HttpEvent, HttpResponse>) => {
    const status = request.response?.statusCode;
    const quiet = quietSuccess && status !== undefined && status < 400;
    // A quiet success is a DEBUG line: below DEBUG nothing is built (it cost ~4 µs of a token).
    if (quiet && logger.level > LogLevelThreshold.DEBUG) return;
    const ms = performance.now() - (started.get(request) ?? performance.now());
    const line = {
      request_id: request.event.requestContext?.requestId,
      method: request.event.httpMethod,
      route: request.event.resource,
      status,
      duration_ms: Math.round(ms * 100) / 100,
    };
    if (quiet) logger.debug('request', line);
    else logger.info('request', line);
  };
  return {
    before: (request) => {
      started.set(request, performance.now());
    },
    after: done,
    onError: (request) => {
      if (request.response) done(request);
    },
  };
}

function errorRenderer(oauth: boolean, page: PageRendering | undefined, routing: Routing): middy.MiddlewareObj<HttpEvent, HttpResponse> {
  return {
    onError: (request) => {
      const err = toAppError(request.error);
      if (err.status === 500) {
        logger.error('unhandled error', { code: err.code, error: (err.cause as Error) ?? err, detail: err.detail });
      } else if (err.status === 503) {
        // A dependency failed after its budget (shared/aws/dependency-budget.ts): expected, not a
        // bug. `timeout` and `function_group` feed the dependency-timeout alarm (ServiceAlarms).
        logger.warn('dependency unavailable', {
          code: err.code,
          function_group: functionGroupOf(request.event, routing),
          dependency: (err.detail as { dependency?: string } | undefined)?.dependency ?? 'aws',
          timeout: isTimeout(err.cause) || (err.detail as { timeout?: boolean } | undefined)?.timeout === true,
          cause: (err.cause as Error)?.message,
          detail: err.detail,
        });
      } else if (err.status >= 500) {
        // An option is unsupported (501): expected, not a bug.
        logger.warn('dependency error', { code: err.code, cause: (err.cause as Error)?.message, detail: err.detail });
      }
      request.response = page
        ? page.errorPage(
            err.status,
            'Something went wrong',
            err.expose ? err.message : 'Internal error. Please try again later.',
            err.headers,
          )
        : renderError(err, getRuntime().config.docsUrl, oauth);
    },
  };
}

function functionGroupOf(event: HttpEvent, routing: Routing): string | undefined {
  try {
    return routeGroup(routing.findRoute(event.httpMethod, event.resource));
  } catch {
    return undefined;
  }
}

/** Refuses oversized bodies before any parsing; keeps the raw body for duplicate-parameter checks. */
function bodyLimit(): middy.MiddlewareObj<HttpEvent, HttpResponse> {
  return {
    before: (request) => {
      const { body, isBase64Encoded } = request.event;
      if (typeof body !== 'string') return;
      const bytes = isBase64Encoded ? Math.floor((body.length * 3) / 4) : Buffer.byteLength(body);
      if (bytes > MAX_BODY_BYTES) throw payloadTooLarge(MAX_BODY_BYTES);
      request.event.rawBody = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
      // An empty body means "no parameters" whatever the content type says.
      if (body.length === 0) (request.event as { body: unknown }).body = undefined;
    },
  };
}

/**
 * API Gateway keeps the last value of a repeated query parameter in `queryStringParameters`; a
 * repeated one is passed on as an array so validation refuses it instead of silently picking one.
 */
function queryParameters(event: HttpEvent): Record<string, unknown> {
  const out: Record<string, unknown> = { ...event.queryStringParameters };
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (values && values.length > 1) out[name] = [...values];
  }
  return out;
}
