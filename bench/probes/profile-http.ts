/**
 * `node --import tsx bench/probes/profile-http.ts <token|uncached|cached> [seconds] [pool]`: where
 * a request's CPU goes over HTTP, as `npm run bench` runs our side: the local stack of `npm start`
 * (bench/servers/ours.ts: startLocalStack, DynamoDB Local, route throttles lifted) in this
 * process, pinned to the server core, under autocannon load from a child process pinned to the
 * other core (16 keep-alive connections). A V8 sampling profile of this process covers the load
 * run only; each busy sample goes to the piece of the request it belongs to (PIECES below, the
 * first frame from the leaf up that a piece claims). Printed: CPU µs per request of the whole
 * process (every thread: jose's WebCrypto verify ran on the libuv pool, which the profile cannot
 * see), and the pieces and functions as shares of the main thread's samples, scaled to it.
 * `uncached`: /tokeninfo over `pool` (12,000) distinct tokens, more than the verified-token cache
 * holds; `cached`: 256 tokens. The handlers' log lines go to /dev/null, as in the bench.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startLocalStack } from '../../infra/local/local-stack.ts';
import { basicAuth, FORM } from '../lib/api-event.ts';
import { prepareOurClient } from '../lib/fixture.ts';
import { runLoad } from '../lib/load.ts';
import { logsToDevNull } from '../lib/logs-to-dev-null.ts';
import { LOAD_CORE, pinSelf, SERVER_CORE, spawnNode } from '../lib/proc.ts';
import { busyMicros, type CpuProfile, functionTable, type Piece, pieceShares } from '../lib/profile-summary.ts';
import { UNTHROTTLED } from '../lib/throttles.ts';
import { fetchTokens } from '../lib/token-pool.ts';

interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  bodies: string[];
  durationS: number;
  connections: number;
}

// ---- the load generator (a child process of the probe) ----------------------------------------------
if (process.argv[2] === '--load') {
  const spec = JSON.parse(readFileSync(process.argv[3]!, 'utf8')) as LoadSpec;
  const r = await runLoad(
    { url: spec.url, method: 'POST', headers: spec.headers, bodies: spec.bodies },
    { connections: spec.connections, durationS: spec.durationS },
  );
  process.stdout.write(JSON.stringify({ ok: r.ok, non2xx: r.non2xx, errors: r.errors, rps: r.rps }));
  process.exit(0);
}

const ROOT = resolve(import.meta.dirname, '../..');
const file = (part: string) => (f: { url: string }) => f.url.includes(part);
const any =
  (...ps: ((f: { url: string; functionName: string }) => boolean)[]) =>
  (f: { url: string; functionName: string }) =>
    ps.some((p) => p(f));

/** The pieces of a request, most specific first (a frame is claimed by the first piece that names it). */
const PIECES: Piece[] = [
  ['ES256 sign or verify (node:crypto, native)', file('node:internal/crypto/sig')],
  [
    'WebCrypto verify, main-thread part (jose → crypto.subtle)',
    any(
      file('node:internal/crypto/webcrypto'),
      file('node:internal/crypto/ec'),
      file('node:internal/crypto/rsa'),
      file('node:internal/crypto/util'),
    ),
  ],
  ['jose: JWS/JWT parse, claims checks', file('/jose/')],
  [
    'client authentication (Basic parse, secret hash, constant-time compare)',
    any(
      file('shared/oauth/authenticate-client.ts'),
      file('shared/oauth/parse-basic-credentials.ts'),
      file('shared/crypto/client-secret.ts'),
    ),
  ],
  [
    'introspection: token digest, verified-token cache, revocation check, view',
    any(
      file('shared/oauth/verify-resource-token.ts'),
      file('shared/oauth/introspect'),
      file('shared/tokens/'),
      file('shared/store/revocations/followed-revocations.ts'),
      file('shared/oauth/may-see-token.ts'),
      file('shared/oauth/user-token-state.ts'),
    ),
  ],
  ['token grant: scopes, claims, JWS input', any(file('shared/oauth/'), file('shared/keys/'))],
  ['record caches (token-path records, TtlCache)', any(file('shared/store/'))],
  ['validation (valibot)', any(file('/valibot/'), file('shared/http/validate.ts'))],
  [
    'body: size limit, UTF-8 check, form/JSON parsers, duplicate check',
    any(
      file('@middy/http-urlencode-body-parser'),
      file('@middy/http-json-body-parser'),
      file('shared/http/strict-body.ts'),
      file('find-duplicate-key'),
    ),
  ],
  ['logging (Powertools logger: context, sampling, lines)', file('@aws-lambda-powertools')],
  ['security headers', any(file('@middy/http-security-headers'), file('shared/http/security-headers.ts'))],
  ['header normalizer, repeated Authorization check', any(file('@middy/http-header-normalizer'), file('reject-repeated-authorization'))],
  ['response body and headers (jsonResponse, error renderer)', any(file('shared/http/response.ts'), file('shared/http/render-error.ts'))],
  ['pipeline glue (http-handler.ts: core, body limit, request log hooks)', file('shared/http/http-handler.ts')],
  ['middy core (runner, early-timeout timer)', any(file('@middy/core'), file('@middy/util'))],
  [
    'runWithRuntime (AsyncLocalStorage)',
    any(file('shared/runtime.ts'), file('node:async_hooks'), file('node:internal/async_local_storage')),
  ],
  ['route lookup (shared/routes/)', file('shared/routes/')],
  ['adapter: proxy event and Lambda context (infra/local/proxy-event.ts)', file('infra/local/proxy-event.ts')],
  [
    "Node's HTTP server: parser, sockets, response write",
    any(file('node:_http_'), file('node:net'), file('node:internal/stream_base_commons'), file('node:internal/http')),
  ],
  ['adapter: body read, URL, routing, throttle, send (infra/local/server.ts)', any(file('infra/local/'))],
  ['garbage collection', (f) => (f as { functionName: string }).functionName === '(garbage collector)'],
  ['V8 runtime (program)', (f) => (f as { functionName: string }).functionName === '(program)'],
];

const [what = 'token', secondsArg = '5', poolArg = '12000'] = process.argv.slice(2);
if (!['token', 'uncached', 'cached'].includes(what)) throw new Error('usage: profile-http.ts <token|uncached|cached> [seconds] [pool]');
const report = logsToDevNull();

pinSelf(SERVER_CORE); // DynamoDB Local, started below, inherits it
const temp = mkdtempSync(join(tmpdir(), 'profile-http-'));
const admin = { clientId: '0190a0a0-bbbb-7000-8000-00000000ab0d', clientSecret: 'bench-profile-http-default-client-secret-0123456789ab' };
const stack = await startLocalStack({
  port: 0,
  dataDir: null,
  tableName: 'profile-http',
  stageThrottle: UNTHROTTLED,
  routeThrottles: 'stage-only',
  defaultClientId: admin.clientId,
  defaultClientSecret: admin.clientSecret,
  env: {},
});
try {
  const f = await prepareOurClient(stack.url, { ...admin, managementAudience: stack.runtime.config.managementAudience });
  const headers = { authorization: basicAuth(f.clientId, f.clientSecret), 'content-type': FORM };
  let spec: LoadSpec;
  if (what === 'token') {
    const body = new URLSearchParams({ grant_type: 'client_credentials', resource: f.resource, scope: f.scope }).toString();
    spec = { url: `${stack.url}/token`, headers, bodies: [body], durationS: Number(secondsArg), connections: 16 };
  } else {
    const n = what === 'uncached' ? Number(poolArg) : 256;
    const tokens = await fetchTokens(stack.url, f.clientId, f.clientSecret, { resource: f.resource, scope: f.scope }, n);
    const bodies = tokens.map((t) => new URLSearchParams({ token: t }).toString());
    spec = { url: `${stack.url}/tokeninfo`, headers, bodies, durationS: Number(secondsArg), connections: 16 };
  }
  // The load generator's spec (a token pool is too long for an argument).
  const specFile = join(temp, 'load.json');
  const load = async (durationS: number) => {
    writeFileSync(specFile, JSON.stringify({ ...spec, durationS }));
    const child = spawnNode(['--import', 'tsx', import.meta.filename, '--load', specFile], { core: LOAD_CORE });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    await new Promise<void>((res, rej) => child.on('exit', (code) => (code === 0 ? res() : rej(new Error(`load exited ${code}`)))));
    return JSON.parse(out) as { ok: number; non2xx: number; errors: number; rps: number };
  };
  await load(2); // warm-up, and for `uncached` one lap that evicts the first tokens before they come back
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const c0 = process.cpuUsage();
  const r = await load(Number(secondsArg));
  const cpu = process.cpuUsage(c0);
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
  session.disconnect();
  if (r.non2xx || r.errors) throw new Error(`load run had ${r.non2xx} non-2xx answers and ${r.errors} errors`);
  const usPerRequest = (cpu.user + cpu.system) / r.ok;
  const mainUs = busyMicros(profile) / r.ok;
  report(
    `${what} over HTTP: ${r.ok} requests (${r.rps}/s), ${usPerRequest.toFixed(1)} µs CPU per request (whole process, profiled); main thread busy ${mainUs.toFixed(1)} µs of wall time per request (more than its CPU when the machine is busy)\n\n`,
  );
  // Shares are of the main thread's samples; µs scale them to the process's CPU per request
  // (work on other threads, such as WebCrypto's verify on the libuv pool, is spread over them).
  report('| piece | share of the main thread | ≈ µs of CPU per request |\n|---|---|---|\n');
  for (const [label, share] of pieceShares(profile, PIECES, 'other: promises, microtasks, timers, event loop'))
    report(`| ${label} | ${(share * 100).toFixed(1)}% | ${(share * usPerRequest).toFixed(1)} |\n`);
  report('\n');
  report(functionTable(profile, usPerRequest, ROOT));
} finally {
  await stack.stop();
  rmSync(temp, { recursive: true, force: true });
}
process.exit(0);
