/**
 * The token function's memory over many tokens (a leak check), in a fresh process as one Lambda
 * container: the runtime built from the environment (envelope key mode, the bench's fake KMS),
 * the token handler's module, events one at a time. After `warm` tokens, and at each checkpoint,
 * a full GC (node --expose-gc) and `process.memoryUsage()`: a heap that keeps growing after GC
 * is a leak; caches bounded by design level off.
 *
 * argv[2]: JSON `{env, event (EventSpec), tokens, checkpoints}`; writes `BENCH_RESULT {...}` to fd 1.
 * The handler's log lines go to /dev/null (one write each, as in Lambda).
 */
import { openSync, writeSync } from 'node:fs';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { loadConfig } from '#shared/config.ts';
import { createRuntime, runWithRuntime } from '#shared/runtime.ts';
import { type EventSpec, lambdaContext, proxyEvent } from '../lib/api-event.ts';
import { installFakeKms } from '../lib/fake-kms.ts';

const args = JSON.parse(process.argv[2]!) as { env: Record<string, string>; event: EventSpec; tokens: number; checkpoints: number[] };
const devNull = openSync('/dev/null', 'w');
process.stdout.write = ((chunk: string | Uint8Array) => {
  if (typeof chunk === 'string') writeSync(devNull, chunk);
  else writeSync(devNull, chunk);
  return true;
}) as typeof process.stdout.write;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

installFakeKms();
const runtime = createRuntime(loadConfig(args.env));
const { handler } = (await import('../../functions/oauth/token.ts')) as {
  handler: (e: APIGatewayProxyEvent, c: Context) => Promise<{ statusCode: number; body?: string }>;
};
const MB = 1024 * 1024;
const snapshot = (tokens: number) => {
  gc();
  const m = process.memoryUsage();
  return {
    tokens,
    rssMb: m.rss / MB,
    heapUsedMb: m.heapUsed / MB,
    heapTotalMb: m.heapTotal / MB,
    externalMb: m.external / MB,
    arrayBuffersMb: m.arrayBuffers / MB,
  };
};
const samples = [];
let done = 0;
let failed = 0;
let peakRss = 0;
const t0 = performance.now();
for (const checkpoint of [0, ...args.checkpoints]) {
  while (done < checkpoint) {
    const r = await runWithRuntime(runtime, () => handler(proxyEvent(args.event), lambdaContext('functions/oauth/token', 1024)));
    if (r.statusCode !== 200) failed++;
    done++;
    if (done % 1000 === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }
  samples.push(snapshot(done));
}
writeSync(1, `\nBENCH_RESULT ${JSON.stringify({ samples, failed, peakRssMb: peakRss / MB, seconds: (performance.now() - t0) / 1000 })}\n`);
process.exit(0);
