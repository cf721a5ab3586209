/**
 * DynamoDB and KMS calls of one operation in a cold container, then warm: a fresh process (every
 * module-level cache empty, as in a new Lambda container) builds the runtime from the given
 * environment (envelope key mode with the bench's fake KMS), counts DynamoDB calls with the meter
 * middleware and KMS calls with the mock, sends the event once (cold), then `warm` more times.
 *
 * argv[2]: JSON `{env, handler, event (EventSpec), warm}`; prints `BENCH_RESULT {...}`.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { loadConfig } from '#shared/config.ts';
import { createRuntime, runWithRuntime } from '#shared/runtime.ts';
import { type EventSpec, lambdaContext, proxyEvent } from '../lib/api-event.ts';
import { attachDdbMeter } from '../lib/ddb-meter.ts';
import { installFakeKms } from '../lib/fake-kms.ts';

const args = JSON.parse(process.argv[2]!) as { env: Record<string, string>; handler: string; event: EventSpec; warm: number };
const kms = installFakeKms();
const runtime = createRuntime(loadConfig(args.env));
const meter = attachDdbMeter(runtime.db);
const mod = (await import(`../../${args.handler}.ts`)) as {
  handler: (e: APIGatewayProxyEvent, c: Context) => Promise<{ statusCode: number; body?: string }>;
};
const ctx = lambdaContext(args.handler);
const send = () => runWithRuntime(runtime, () => mod.handler(proxyEvent(args.event), ctx));

const d0 = meter.snapshot();
const first = await send();
const cold = { ddb: meter.since(d0), kms: kms.calls(), status: first.statusCode };
const d1 = meter.snapshot();
const k1 = kms.total();
let status = first.statusCode;
for (let i = 0; i < args.warm; i++) status = (await send()).statusCode;
const warmUsage = meter.since(d1);
const warm = {
  requests: args.warm,
  ddb: warmUsage,
  ddbCallsPerRequest: warmUsage.calls / Math.max(1, args.warm),
  readsPerRequest: warmUsage.reads / Math.max(1, args.warm),
  rruPerRequest: warmUsage.rcu / Math.max(1, args.warm),
  kmsPerRequest: (kms.total() - k1) / Math.max(1, args.warm),
  status,
};
process.stdout.write(
  `\nBENCH_RESULT ${JSON.stringify({ cold, warm, coldBody: first.statusCode >= 300 ? first.body?.slice(0, 300) : undefined })}\n`,
);
process.exit(0);
