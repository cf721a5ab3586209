import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import { resolve } from 'node:path';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { basicAuth, FORM, lambdaContext, proxyEvent } from '../lib/api-event.ts';
import type { DdbMeter, DdbUsage } from '../lib/ddb-meter.ts';
import type { TokenFixture } from '../lib/fixture.ts';
import { opsPerSecond, type Rate, syncOpsPerSecond } from '../lib/loop.ts';
import { type ProfileArea, profileAreas } from '../lib/profile.ts';
import { round } from '../lib/stats.ts';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number; body?: string }>;

/** Calls per wall-clock second, and per CPU-second this process used (what one free core does). */
export interface RateOut {
  perSec: number;
  perCpuSec: number;
}

export interface LimitsResult {
  /** node:crypto ES256 (P-256 ECDSA, SHA-256, JOSE r||s encoding) on a 300-byte JWS input, one core. */
  es256Sign: RateOut;
  es256Verify: RateOut;
  /** The key store's `signJwt` (header + payload JSON, base64url, sign) with the service's current key. */
  signJwt: RateOut;
  /** functions/oauth/token.ts `handler`, API Gateway event in, response out, one event at a time (per CPU-second: without the bench's event construction). */
  tokenHandler: RateOut;
  /** CPU µs the bench spends building one API Gateway event and Lambda context (taken out of the handler's figures). */
  eventBuildUs: number;
  /** functions/oauth/tokeninfo.ts `handler`, same way (null when it could not run). */
  tokeninfoHandler: RateOut | null;
  /** The same over more distinct tokens than the container remembers (a signature verification and a revocation check in memory each). */
  tokeninfoUncached: (RateOut & { ddbCallsPerRequest: number; rruPerRequest: number; pool: number }) | null;
  /** CPU microseconds per token: signature, the JWS layer around it, everything else in the handler. */
  breakdownUs: { signature: number; jws: number; handlerRest: number; total: number };
  /** Handler throughput as a share of the raw signature limit (CPU-time based). */
  shareOfSignLimit: number;
  /** DynamoDB and KMS calls during the timed handler run (warm container). */
  tokenRun: { tokens: number; ddb: DdbUsage; ddbReadsPerToken: number; rruPerToken: number; kmsCalls: number; kmsPerToken: number };
  /** What the token handler writes to stdout (its log lines, which Lambda ships to CloudWatch) per token, and the response body's size. */
  logBytesPerToken: number;
  logLinesPerToken: number;
  responseBytes: number;
  /** CPU profile of the handler loop, self time by area. */
  profile: { areas: ProfileArea[]; topFunctions: ProfileArea[] };
  /** DynamoDB calls per tokeninfo request during its timed run (the revocation log read once a second), when it ran. */
  tokeninfoDdbCallsPerRequest: number | null;
  /** The same for the tokeninfo handler. */
  tokeninfoProfile: { areas: ProfileArea[]; topFunctions: ProfileArea[] } | null;
}

const out = (r: Rate): RateOut => ({ perSec: Math.round(r.perSec), perCpuSec: Math.round(r.perCpuSec) });

export async function benchLimits(o: {
  runtime: Runtime;
  fixture: TokenFixture;
  meter: DdbMeter;
  kmsTotal: () => number;
  seconds: number;
  /** Distinct tokens for the uncached tokeninfo run (more than the verified-token cache holds). */
  uncachedPool: number;
  log: (line: string) => void;
}): Promise<LimitsResult> {
  const { runtime, fixture, meter, kmsTotal, seconds, uncachedPool, log } = o;

  // 1. The cryptographic limit.
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const input = Buffer.from('e'.repeat(300));
  const sig = sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const signRate = syncOpsPerSecond(() => sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' }), seconds);
  const verifyRate = syncOpsPerSecond(() => verify('sha256', input, { key: publicKey, dsaEncoding: 'ieee-p1363' }, sig), seconds);
  log(
    `limits: raw ES256 sign ${Math.round(signRate.perSec)}/s (${Math.round(signRate.perCpuSec)}/cpu-s), verify ${Math.round(verifyRate.perSec)}/s`,
  );

  // 2. The key store's JWS signing (what mint-access-token calls).
  const payload = {
    iss: runtime.config.issuer,
    sub: fixture.clientId,
    aud: fixture.resource,
    client_id: fixture.clientId,
    scope: fixture.scope,
    iat: 1,
    nbf: 1,
    exp: 2,
    jti: createHash('sha256').update('x').digest('base64url'),
    tenant_id: '00000000-0000-0000-0000-000000000000',
  };
  const signJwtRate = await opsPerSecond(() => runtime.keys.signJwt('ES256', { typ: 'at+jwt' }, payload), seconds);
  log(`limits: keys.signJwt ${Math.round(signJwtRate.perSec)}/s (${Math.round(signJwtRate.perCpuSec)}/cpu-s)`);

  // 3. The token handler, in process: the same module Lambda loads, with an API Gateway event.
  const { handler } = (await import('../../functions/oauth/token.ts')) as { handler: Handler };
  const body = new URLSearchParams({ grant_type: 'client_credentials', resource: fixture.resource, scope: fixture.scope }).toString();
  const auth = basicAuth(fixture.clientId, fixture.clientSecret);
  // A fresh event and context per call, as each Lambda invocation gets (the context's deadline
  // runs from its creation). Building them is the bench's work (the Lambda runtime's, in AWS): it
  // is timed alone below and taken out of the handler's figure.
  const tokenEvent = () => proxyEvent({ method: 'POST', resource: '/token', headers: { Authorization: auth, 'Content-Type': FORM }, body });
  const invocation = () => ({ event: tokenEvent(), ctx: lambdaContext('functions/oauth/token', 1024) });
  const buildRate = syncOpsPerSecond(invocation, Math.min(1, seconds));
  const issue = async () => {
    const { event, ctx } = invocation();
    const r = await runWithRuntime(runtime, () => handler(event, ctx));
    if (r.statusCode !== 200) throw new Error(`in-process /token: ${r.statusCode} ${r.body?.slice(0, 300)}`);
    return r;
  };
  const first = await issue(); // fills the container's caches, like the first event of a Lambda container
  const accessToken = (JSON.parse(first.body!) as { access_token: string }).access_token;
  const ddb0 = meter.snapshot();
  const kms0 = kmsTotal();
  const run = await opsPerSecond(issue, seconds);
  const ddb = meter.since(ddb0);
  const kmsCalls = kmsTotal() - kms0;
  const tokensInRun = run.count + run.warmupCount; // the meter saw the warm-up too
  log(
    `limits: token handler in-process ${Math.round(run.perSec)}/s (${Math.round(run.perCpuSec)}/cpu-s), ${ddb.calls} DynamoDB calls and ${kmsCalls} KMS calls in ${tokensInRun} tokens`,
  );

  const logs = await countStdout(async () => {
    for (let i = 0; i < 1000; i++) await issue();
  });

  const profile = await profileAreas(
    async () => {
      await opsPerSecond(issue, Math.min(2, seconds), 0);
    },
    resolve(import.meta.dirname, '../..'),
  );

  // 4. tokeninfo in process (the introspection side's limit: a verify instead of a sign).
  let tokeninfoRate: Rate | null = null;
  let tokeninfoProfile: LimitsResult['tokeninfoProfile'] = null;
  let tokeninfoDdb: number | null = null;
  let tokeninfoUncached: LimitsResult['tokeninfoUncached'] = null;
  try {
    const { handler: tokeninfo } = (await import('../../functions/oauth/tokeninfo.ts')) as { handler: Handler };
    const tbody = new URLSearchParams({ token: accessToken }).toString();
    const call = async () => {
      const r = await runWithRuntime(runtime, () =>
        tokeninfo(
          proxyEvent({ method: 'POST', resource: '/tokeninfo', headers: { Authorization: auth, 'Content-Type': FORM }, body: tbody }),
          lambdaContext('functions/oauth/tokeninfo', 512),
        ),
      );
      if (r.statusCode !== 200) throw new Error(`in-process /tokeninfo: ${r.statusCode} ${r.body?.slice(0, 300)}`);
    };
    await call();
    const t0 = meter.snapshot();
    tokeninfoRate = await opsPerSecond(call, seconds);
    tokeninfoDdb = meter.since(t0).calls / (tokeninfoRate.count + tokeninfoRate.warmupCount);
    tokeninfoProfile = await profileAreas(
      async () => {
        await opsPerSecond(call, Math.min(2, seconds), 0);
      },
      resolve(import.meta.dirname, '../..'),
    );
    log(
      `limits: tokeninfo handler in-process ${Math.round(tokeninfoRate.perSec)}/s (${Math.round(tokeninfoRate.perCpuSec)}/cpu-s), ${round(tokeninfoDdb)} DynamoDB calls per request`,
    );

    // The uncached case: more distinct tokens than the container remembers, round-robin, so each
    // request verifies a signature and checks its binding against the revocations the container follows.
    const pool: string[] = [];
    for (let i = 0; i < uncachedPool; i++) pool.push((JSON.parse((await issue()).body!) as { access_token: string }).access_token);
    const bodies = pool.map((t) => new URLSearchParams({ token: t }).toString());
    let next = 0;
    const callUncached = async () => {
      const b = bodies[next++ % bodies.length]!;
      const r = await runWithRuntime(runtime, () =>
        tokeninfo(
          proxyEvent({ method: 'POST', resource: '/tokeninfo', headers: { Authorization: auth, 'Content-Type': FORM }, body: b }),
          lambdaContext('functions/oauth/tokeninfo', 512),
        ),
      );
      if (r.statusCode !== 200) throw new Error(`in-process /tokeninfo (uncached): ${r.statusCode} ${r.body?.slice(0, 300)}`);
    };
    for (let i = 0; i < bodies.length; i++) await callUncached(); // one full lap: every later request finds its token evicted
    const u0 = meter.snapshot();
    const uRate = await opsPerSecond(callUncached, seconds, 0);
    const uDdb = meter.since(u0);
    tokeninfoUncached = {
      ...out(uRate),
      ddbCallsPerRequest: round(uDdb.calls / uRate.count),
      rruPerRequest: round(uDdb.rcu / uRate.count),
      pool: uncachedPool,
    };
    log(
      `limits: tokeninfo uncached in-process ${tokeninfoUncached.perSec}/s (${tokeninfoUncached.perCpuSec}/cpu-s), ${tokeninfoUncached.ddbCallsPerRequest} DynamoDB calls per request`,
    );
  } catch (err) {
    log(`limits: tokeninfo in-process skipped: ${(err as Error).message}`);
  }

  const us = (r: Rate) => 1e6 / r.perCpuSec;
  const eventUs = us(buildRate);
  // The handler's own CPU per token: the loop's, less building the event and context.
  const handlerUs = us(run) - eventUs;
  const handlerPerCpuSec = Math.round(1e6 / handlerUs);
  return {
    es256Sign: out(signRate),
    es256Verify: out(verifyRate),
    signJwt: out(signJwtRate),
    tokenHandler: { perSec: Math.round(run.perSec), perCpuSec: handlerPerCpuSec },
    eventBuildUs: round(eventUs),
    tokeninfoHandler: tokeninfoRate && out(tokeninfoRate),
    tokeninfoUncached,
    breakdownUs: {
      signature: round(us(signRate)),
      jws: round(us(signJwtRate) - us(signRate)),
      handlerRest: round(handlerUs - us(signJwtRate)),
      total: round(handlerUs),
    },
    shareOfSignLimit: round(handlerPerCpuSec / signRate.perCpuSec),
    tokenRun: {
      tokens: tokensInRun,
      ddb,
      ddbReadsPerToken: ddb.reads / tokensInRun,
      rruPerToken: ddb.rcu / tokensInRun,
      kmsCalls,
      kmsPerToken: kmsCalls / tokensInRun,
    },
    logBytesPerToken: round(logs.bytes / 1000),
    logLinesPerToken: round(logs.lines / 1000),
    responseBytes: Buffer.byteLength(first.body ?? ''),
    profile,
    tokeninfoProfile,
    tokeninfoDdbCallsPerRequest: tokeninfoDdb === null ? null : round(tokeninfoDdb),
  };
}

/** Bytes and lines `work` writes to process.stdout (where the handlers' Powertools logger writes). */
async function countStdout(work: () => Promise<void>): Promise<{ bytes: number; lines: number }> {
  const original = process.stdout.write;
  let bytes = 0;
  let lines = 0;
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
    bytes += b.length;
    for (const c of b) if (c === 10) lines++;
    return (original as (...a: unknown[]) => boolean).call(process.stdout, chunk, ...rest);
  }) as typeof process.stdout.write;
  try {
    await work();
  } finally {
    process.stdout.write = original;
  }
  return { bytes, lines };
}
