import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from '#shared/routes/route.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';

/**
 * Exhaustion (docs/security.md "Exhaustion bounds"): every route of the route table, over the real
 * local server, gets request shapes made to cost time or memory: deep and wide JSON, long values,
 * many form and query parameters, many cookies and headers, deep `q` filters, a token of deep JSON.
 * Each answer must be a 4xx in the route's error shape (or its normal answer where the shape is
 * harmless), never a 5xx, within 2 s, and the process must keep serving with its peak memory
 * bounded. The server runs in this process, so its peak RSS is this process's.
 */
let svc: TestService;
let admin: string;
let baselineRssKb: number;

const PER_REQUEST_MS = 2000;
/**
 * How far the process's peak RSS may rise over the whole walk: about 150 MB of garbage from the
 * 1 MB bodies is normal; a scan quadratic in the depth needs about 1 GB for one body 10,000 levels deep.
 */
const MAX_RSS_GROWTH_KB = 384 * 1024;

interface Shape {
  name: string;
  /** Sent without credentials too (else only with the route's own): bodies are bounded before authentication. */
  anonymous?: true;
  body?: string;
  contentType?: string;
  query?: string;
  headers?: Record<string, string>;
}

const deepArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const mixed = (depth: number) => `${'[{"a":'.repeat(depth / 2)}1${'}]'.repeat(depth / 2)}`;
const repeat = (n: number, item: (i: number) => string, sep: string) => Array.from({ length: n }, (_, i) => item(i)).join(sep);
const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';
const b64url = (s: string) => Buffer.from(s).toString('base64url');

/** The deepest shapes come first: a quadratic scan fails on them before the deeper ones take the process down. */
const SHAPES: Shape[] = [
  { name: 'arrays 100 deep', body: deepArrays(100), contentType: JSON_TYPE },
  { name: 'objects 100 deep', body: deepObjects(100), contentType: JSON_TYPE },
  { name: 'arrays 10,000 deep', body: deepArrays(10_000), contentType: JSON_TYPE, anonymous: true },
  { name: 'objects 10,000 deep', body: deepObjects(10_000), contentType: JSON_TYPE },
  { name: 'arrays and objects 10,000 deep', body: mixed(10_000), contentType: JSON_TYPE },
  { name: 'arrays 30,000 deep', body: deepArrays(30_000), contentType: JSON_TYPE, anonymous: true },
  { name: 'arrays 30,000 deep, merge-patch', body: deepArrays(30_000), contentType: 'application/merge-patch+json' },
  { name: 'objects 30,000 deep (past the body limit)', body: deepObjects(30_000), contentType: JSON_TYPE },
  { name: '30,000 elements', body: `[${repeat(30_000, () => '0', ',')}]`, contentType: JSON_TYPE },
  { name: '6,000 members', body: `{${repeat(6000, (i) => `"m${i}":0`, ',')}}`, contentType: JSON_TYPE },
  { name: '100,000 elements (past the body limit)', body: `[${repeat(100_000, () => '0', ',')}]`, contentType: JSON_TYPE },
  { name: 'a 60 KB value', body: `{"client_name":"${'x'.repeat(60_000)}","name":"${'y'.repeat(1000)}"}`, contentType: JSON_TYPE },
  { name: 'a 1 MB value', body: `{"client_name":"${'x'.repeat(1024 * 1024)}"}`, contentType: JSON_TYPE },
  { name: '5,000 form parameters', body: repeat(5000, (i) => `p${i}=1`, '&'), contentType: FORM_TYPE },
  { name: '100,000 form parameters (past the body limit)', body: repeat(100_000, () => 'a', '&'), contentType: FORM_TYPE },
  { name: '1,000 query parameters', query: repeat(1000, (i) => `q${i}=1`, '&') },
  { name: '20,000 query parameters (past the header limit)', query: repeat(20_000, () => 'a', '&') },
  // Within q's 2,000 characters, so the grammar reads them; and past them.
  { name: 'a q filter of 990 open parentheses', query: `q=${'('.repeat(990)}${')'.repeat(990)}` },
  { name: 'a q filter of 90 terms', query: `q=${repeat(90, () => '(is_public=true)', '+and+')}` },
  { name: 'a q filter of 3,000 open parentheses', query: `q=${'('.repeat(3000)}${')'.repeat(3000)}` },
  { name: 'fields and sort of 1,000 names', query: `fields=${repeat(1000, () => 'id', ',')}&sort=${repeat(1000, () => 'id', ',')}` },
  { name: '1,000 cookies', headers: { cookie: repeat(1000, (i) => `c${i}=v`, '; ') } },
  { name: 'a 100 KB Cookie header', headers: { cookie: `session=${'s'.repeat(100 * 1024)}` } },
  { name: '500 headers', headers: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`x-h${i}`, '1'])) },
  {
    name: 'a bearer token of deep JSON',
    headers: { authorization: `Bearer ${b64url(deepArrays(2500))}.${b64url(deepObjects(300))}.${b64url('sig')}` },
  },
];

/** The route's path with every parameter filled: ids nobody has, so nothing of the stack's is touched. */
const pathOf = (route: Route) => route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => (name === 'file' ? 'x.js' : randomUUID()));

/** What the route's own caller would send: the admin token, the Default Client, or nothing. */
const credentialsOf = (route: Route): string | undefined =>
  route.auth.type === 'bearer' ? `Bearer ${admin}` : route.auth.type === 'client' ? basicAuth(svc.clientId, svc.clientSecret) : undefined;

interface Answer {
  status: number;
  contentType: string;
  text: string;
  ms: number;
}

const peakRssKb = () => process.resourceUsage().maxRSS;

/** node:http, not fetch: a GET may carry a body too (API Gateway passes it on), and headers go as given. */
function send(route: Route, shape: Shape, authorization: string | undefined): Promise<Answer> {
  const headers: Record<string, string> = { ...shape.headers };
  if (shape.contentType) headers['content-type'] = shape.contentType;
  if (authorization && !headers.authorization) headers.authorization = authorization;
  if (shape.body !== undefined) headers['content-length'] = String(Buffer.byteLength(shape.body));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${svc.url}${pathOf(route)}${shape.query ? `?${shape.query}` : ''}`, { method: route.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'] ?? '',
          text: Buffer.concat(chunks).toString('utf8'),
          ms: performance.now() - started,
        }),
      );
      res.on('error', reject);
    });
    // The server may answer (413, 431) and close before the whole body is written.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    req.end(shape.body);
  });
}

/** A 4xx in the route's error shape (`{code, message}` or a hosted page's HTML), or an answer of its own below 400. */
function expectAnswered(what: string, r: Answer): void {
  expect(r.status, `${what}: ${r.status} ${r.text.slice(0, 200)}`).toBeLessThan(500);
  expect(r.ms, `${what}: ${Math.round(r.ms)} ms`).toBeLessThan(PER_REQUEST_MS);
  expect(peakRssKb() - baselineRssKb, `${what}: peak RSS`).toBeLessThan(MAX_RSS_GROWTH_KB);
  if (r.status < 400) return;
  if (r.contentType.startsWith('text/html')) {
    expect(r.text, what).toMatch(/^<!DOCTYPE html>/i);
    return;
  }
  expect(r.contentType, what).toMatch(/^application\/json/);
  const body = JSON.parse(r.text) as { code?: unknown; message?: unknown };
  expect(typeof body.code, `${what}: ${r.text}`).toBe('string');
  expect(typeof body.message, `${what}: ${r.text}`).toBe('string');
}

const stillServing = async () => {
  const res = await fetch(`${svc.url}/.well-known/openid-configuration`);
  expect(res.status).toBe(200);
  expect(((await res.json()) as { issuer: string }).issuer).toBe(svc.url);
};

beforeAll(async () => {
  // The routes' own throttles would answer most shapes 429 on the tightly throttled routes.
  svc = await startTestService({ routeThrottles: 'stage-only' });
  admin = await svc.managementToken();
  await stillServing();
  baselineRssKb = peakRssKb();
});
afterAll(async () => svc?.stop());

describe('exhaustion: every route answers adversarial shapes with a 4xx, quickly, and the process keeps serving', () => {
  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', { timeout: 60_000 }, async (_, route) => {
    const credentials = credentialsOf(route);
    // The route's module loads on its first request: the timings are of the shapes alone.
    await send(route, { name: 'warm-up' }, credentials);
    for (const shape of SHAPES) {
      if (credentials) expectAnswered(`${shape.name} with credentials`, await send(route, shape, credentials));
      if (!credentials || shape.anonymous) expectAnswered(shape.name, await send(route, shape, undefined));
    }
    await stillServing();
  });
});
