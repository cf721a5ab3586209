// Cold start probe: a fresh `node` process that loads one handler bundle and handles one API
// Gateway event, as a new Lambda container does. Plain JavaScript on purpose: no loader (tsx) may
// add its own start-up time. performance.now() counts from the process's time origin (its start),
// so `readyMs` is "fresh process to first handled event".
// argv: <bundle.mjs> <event.json>; prints one line `BENCH_RESULT {...}` last.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [bundle, eventFile] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'bench-cold-start',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench-cold-start',
  memoryLimitInMB: '1024',
  awsRequestId: 'cold-start-probe',
  logGroupName: '/aws/lambda/bench',
  logStreamName: 'bench',
  getRemainingTimeInMillis: () => 10_000,
  done() {},
  fail() {},
  succeed() {},
};
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const t0 = performance.now();
const c0 = cpu();
const mod = await import(pathToFileURL(bundle).href);
const imported = performance.now();
const c1 = cpu();
event.requestContext.requestTimeEpoch = Date.now();
const res = await mod.handler(event, context);
const handled = performance.now();
const c2 = cpu();
// CPU milliseconds of this process (all threads) besides the wall times: they survive a busy machine.
process.stdout.write(
  `\nBENCH_RESULT ${JSON.stringify({ bootMs: t0, importMs: imported - t0, handleMs: handled - imported, readyMs: handled, bootCpuMs: c0, importCpuMs: c1 - c0, readyCpuMs: c2, status: res?.statusCode ?? null })}\n`,
);
// Like a frozen Lambda container: do not wait for keep-alive sockets to close.
process.exit(0);
