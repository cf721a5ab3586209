import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import { resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import {
  type AppError,
  badRequest,
  headersTooLarge,
  internalError,
  methodNotAllowed,
  notFound,
  payloadTooLarge,
  tooManyRequests,
} from '#shared/errors.ts';
import { renderError } from '#shared/http/render-error.ts';
import type { HttpResponse } from '#shared/http/response.ts';
import { withSecurityHeaders } from '#shared/http/security-headers.ts';
import { FUNCTION_TIMEOUTS, routeGroup } from '#shared/routes/function-groups.ts';
import { matchRoute } from '#shared/routes/match-route.ts';
import { OAUTH_ERROR_PATHS } from '#shared/routes/oauth-routes.ts';
import type { Route, Throttle } from '#shared/routes/route.ts';
import { type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { lambdaContext, proxyEvent } from './proxy-event.ts';
import { TokenBucket } from './token-bucket.ts';

/** API Gateway's own payload limit (REST APIs: 10 MB). */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;
/**
 * API Gateway's limit on the request line and headers together (REST APIs: 10,240 bytes; a
 * regional API's URL is also at most 10,240 characters). Node's parser counts the header names
 * too, so the local server is a little stricter, never looser; beyond it: 431.
 */
export const GATEWAY_MAX_HEADER_BYTES = 10_240;
const PROJECT_ROOT = resolve(import.meta.dirname, '../..');

export interface LocalServerOptions {
  port: number;
  host?: string;
  /** The stage's default throttle (API Gateway stage settings); routes may override it. */
  stageThrottle: Throttle;
  /** `stage-only` ignores the routes' own throttles (benchmarks); default: as API Gateway applies them. */
  routeThrottles?: 'routes' | 'stage-only';
  stage?: string;
  docsUrl?: string | undefined;
  /** The runtime every handler of this server sees (several local stacks can share a process). */
  runtime: Runtime;
  /** Sees every answer (the tests' OpenAPI contract check, test/support/service/local-service.ts). */
  observe?: (exchange: ObservedExchange) => void;
}

/** One request and its answer, as `observe` sees them. */
export interface ObservedExchange {
  method: string;
  /** The request path, without the query. */
  path: string;
  status: number;
  contentType: string | null;
  body: string;
}

export interface LocalServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<HttpResponse>;

/**
 * Stands in for API Gateway: routes with the same route table the CDK app reads, applies the same
 * stage and per-route throttles (429), turns each request into a REST proxy event and runs the very
 * handler module Lambda runs. Unknown path → 404, known path with another method → 405 + Allow,
 * both in the error body shape, as the API's fallback function answers in AWS. Every answer of its
 * own (404, 405, 413, 429, 431, 400 for what is not HTTP) has the pipeline's security headers and
 * the `{code, message}` body (API Gateway's own 413 and 429 on an OAuth endpoint also `error` and
 * `error_description`), and never echoes the request (docs/contract.md §8 "Errors").
 */
export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const handlers = new Map<string, Promise<LambdaHandler>>();
  const stage = options.stage ?? 'local';

  const loadHandler = (module: string) => {
    let h = handlers.get(module);
    if (!h) {
      h = import(pathToFileURL(resolve(PROJECT_ROOT, `${module}.ts`)).href).then((m: { handler: LambdaHandler }) => m.handler);
      handlers.set(module, h);
    }
    return h;
  };

  /** What a route needs on every request, worked out on its first: its token bucket, its function's timeout, its handler once loaded. */
  interface RouteState {
    bucket: TokenBucket;
    timeoutMs: number;
    handler?: LambdaHandler;
  }
  const routeStates = new Map<Route, RouteState>();
  const stateOf = (route: Route) => {
    let st = routeStates.get(route);
    if (!st) {
      const t = (options.routeThrottles !== 'stage-only' && route.throttle) || options.stageThrottle;
      // The function's own timeout, as Lambda would give it (its route group's, shared/routes/function-groups.ts).
      st = { bucket: new TokenBucket(t.rateLimit, t.burstLimit), timeoutMs: FUNCTION_TIMEOUTS[routeGroup(route)] * 1000 };
      routeStates.set(route, st);
    }
    return st;
  };

  const fail = (e: AppError) => withSecurityHeaders(renderError(e, options.docsUrl, false));
  // What API Gateway answers itself (its throttle, its body limit) and the fallback function's 405
  // carry `error` and `error_description` too on an OAuth endpoint (docs/contract.md §2). API Gateway's
  // gateway responses, one per API, carry them on every route (infra/constructs/gateway-responses.ts
  // `gatewayErrorBody`); here the route is known, so the other routes keep `{code, message}`.
  const gatewayFail = (e: AppError, path: string) => withSecurityHeaders(renderError(e, options.docsUrl, OAUTH_ERROR_PATHS.has(path)));

  const answer = async (req: IncomingMessage, body: Buffer | undefined): Promise<HttpResponse> => {
    const url = requestTarget(req.url);
    const method = (req.method ?? 'GET').toUpperCase();
    if (!url) return body ? fail(notFound()) : fail(payloadTooLarge(GATEWAY_MAX_BODY));
    if (!body) return gatewayFail(payloadTooLarge(GATEWAY_MAX_BODY), url.pathname);
    const match = matchRoute(method, url.pathname);
    if (match.kind === 'not_found') return fail(notFound());
    if (match.kind === 'method_not_allowed') return gatewayFail(methodNotAllowed(match.allow), url.pathname);
    // As the API's fallback function answers it (functions/http/fallback.ts).
    if (match.kind === 'redirect') return withSecurityHeaders({ statusCode: 308, headers: { Location: match.location }, body: '' });
    const route = stateOf(match.route);
    if (!route.bucket.take()) return gatewayFail(tooManyRequests(), match.route.path);
    const event = toProxyEvent(req, url, method, match.route, match.pathParameters, body, stage);
    // Loaded once per module; from then on called without waiting for the import's promise.
    const handler = (route.handler ??= await loadHandler(match.route.handler));
    // On AWS the docs functions read the OpenAPI document from their bundle, written when they are
    // bundled; here it is made on first use (importing every handler), so it is made before the
    // function's clock starts, as a bundle's files are: a loaded machine must not turn it into a 503.
    if (match.route.handler.startsWith('functions/docs/')) await options.runtime.apiDocs?.document();
    const context = lambdaContext(match.route.handler, event.requestContext.requestId, 1024, route.timeoutMs);
    return runWithRuntime(options.runtime, () => handler(event, context));
  };

  const server = createServer({ maxHeaderSize: GATEWAY_MAX_HEADER_BYTES }, (req, res) => {
    readBody(req)
      .then((body) => answer(req, body))
      .then((r) => {
        options.observe?.({
          method: (req.method ?? 'GET').toUpperCase(),
          path: requestTarget(req.url)?.pathname ?? '',
          status: r.statusCode,
          contentType: Object.entries(r.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? null,
          body: r.isBase64Encoded ? '' : (r.body ?? ''),
        });
        send(res, r);
      })
      .catch((err: unknown) => {
        // Handlers render their own errors; reaching here is a bug in the adapter itself.
        process.stderr.write(`local server error: ${(err as Error).stack ?? String(err)}\n`);
        send(res, fail(internalError()));
      });
  });
  // What Node's HTTP parser refuses never reaches a handler; Node would answer it with a bare
  // status line (a 431 without body). Answer in the error shape instead, then close: after a
  // parse error the connection cannot carry another request.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    socket.end(
      rawResponse(fail(err.code === 'HPE_HEADER_OVERFLOW' ? headersTooLarge() : badRequest('The request is not valid HTTP/1.1.'))),
    );
  });

  await new Promise<void>((res, rej) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        rej(new Error(`Port ${options.port} is already in use. Stop whatever listens there or start with PORT=<another port>.`));
      } else rej(err);
    });
    server.listen(options.port, options.host ?? '127.0.0.1', () => res());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://localhost:${port}`,
    server,
    close: () =>
      new Promise<void>((res) => {
        server.close(() => res());
        server.closeAllConnections();
      }),
  };
}

/** The parts of a request target a route needs. */
interface RequestTarget {
  pathname: string;
  searchParams: URLSearchParams;
}

/**
 * Paths the URL parser leaves exactly as sent: segments of unreserved characters (RFC 3986 §2.3)
 * that are not `.` or `..`. Nothing in them is percent-encoded, decoded or resolved.
 */
const PLAIN_PATH = /^(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9._~-]*)+$/;
/**
 * A query the URL parser keeps as sent: printable ASCII other than `#` (a fragment), and no
 * control character or space, which it strips or trims. Not non-ASCII: `new URL` percent-encodes
 * it as UTF-8 before decoding, while Node's `URLSearchParams` on a raw string decodes `é%e2` as
 * two replacement characters where URL gives `é` and one (found by the property test below).
 */
const PLAIN_QUERY = /^[!"$-~]*$/;

/**
 * The request target as a path and query on this server. Only the origin form (RFC 9112 §3.2.1: a
 * path starting with one `/`) names a route: `new URL('//identity/v1/clients', base)` would read
 * `identity` as a host, and an absolute-form target names another server. A plain path (every API
 * route a client calls) is taken as it is, without the URL parser (about 3 µs a request,
 * docs/benchmarks.md "Item 9, round 3"); any other goes through `new URL`, which normalises it as
 * a gateway would. The query is parsed as `URL.searchParams` parses it (a fragment is cut off).
 */
export function requestTarget(target: string | undefined): RequestTarget | undefined {
  if (!target?.startsWith('/') || target.startsWith('//')) return undefined;
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  // With its `?`: URLSearchParams drops one leading `?`, so a query that itself starts with `?` keeps it, as in URL.
  const query = q === -1 ? '' : target.slice(q);
  if (PLAIN_PATH.test(path) && PLAIN_QUERY.test(query)) return { pathname: path, searchParams: new URLSearchParams(query) };
  try {
    return new URL(`http://localhost${target}`);
  } catch {
    return undefined;
  }
}

/** A complete HTTP/1.1 response for a socket the parser gave up on (`Connection: close`). */
function rawResponse(r: HttpResponse): string {
  const body = r.body ?? '';
  const headers = { ...r.headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' };
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return `HTTP/1.1 ${r.statusCode} ${STATUS_CODES[r.statusCode] ?? ''}\r\n${head}\r\n${body}`;
}

/**
 * The whole body, or undefined when it exceeds the gateway's limit (the request is then dropped,
 * as a `for await` loop leaving early did). Read with 'data' events: the async iterator cost about
 * 10 µs a request (docs/benchmarks.md "Item 9, round 3").
 */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolveBody, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > GATEWAY_MAX_BODY) {
        // Answered (413) at once; the rest of the body is read and dropped. Destroying the request
        // here would close the socket before the answer, and the client would see a reset.
        chunks = [];
        resolveBody(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolveBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

/** The answer, its length counted from the body (a text body goes to the socket as a string, not copied into a Buffer first). */
function send(res: ServerResponse, r: HttpResponse): void {
  const body = r.isBase64Encoded ? Buffer.from(r.body, 'base64') : (r.body ?? '');
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  res.writeHead(r.statusCode, { ...r.headers, 'Content-Length': String(length) });
  res.end(body);
}

/** The proxy event of an HTTP request, with every header and query value as the gateway keeps them. */
function toProxyEvent(
  req: IncomingMessage,
  url: RequestTarget,
  method: string,
  route: Route,
  pathParameters: Record<string, string>,
  body: Buffer,
  stage: string,
): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers[name] = value; // API Gateway keeps the last value in `headers`
    (multiValueHeaders[name] ??= []).push(value);
  }
  const query: Record<string, string> = {};
  const multiValueQuery: Record<string, string[]> = {};
  for (const [k, v] of url.searchParams) {
    query[k] = v;
    (multiValueQuery[k] ??= []).push(v);
  }
  return proxyEvent(
    {
      method,
      resource: route.path,
      path: url.pathname,
      headers,
      multiValueHeaders,
      query,
      multiValueQuery,
      pathParameters,
      body: body.length ? body.toString('utf8') : null,
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    },
    stage,
  );
}
