// Preloaded into our bench server by bench/probes/open-loop-stall.ts (`node --import`): writes to
// stderr each event-loop stall over 15 ms and each GC pause over 5 ms with its wall-clock time,
// and once a second the DynamoDB calls the process sent in that second, by operation (read from
// the X-Amz-Target header of every HTTP request the SDK makes). Diagnostics only: never loaded by
// the service itself.
import http from 'node:http';
import { constants, PerformanceObserver } from 'node:perf_hooks';

const kinds = { [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major', [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor' };
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if (e.duration > 5)
      process.stderr.write(
        `STALL gc ${kinds[e.detail?.kind] ?? 'other'} ${e.duration.toFixed(1)} ms at ${Math.round(performance.timeOrigin + e.startTime)}\n`,
      );
}).observe({ entryTypes: ['gc'] });

let last = performance.now();
setInterval(() => {
  const now = performance.now();
  const lag = now - last - 5;
  if (lag > 15) process.stderr.write(`STALL loop ${lag.toFixed(1)} ms ending ${Math.round(performance.timeOrigin + now)}\n`);
  last = now;
}, 5).unref();

const request = http.request;
let calls = {};
http.request = function counted(...args) {
  const o = args.find((a) => a && typeof a === 'object' && !(a instanceof URL));
  const target = o?.headers?.['x-amz-target'] ?? o?.headers?.['X-Amz-Target'];
  if (target) {
    const op = String(target).split('.').pop();
    calls[op] = (calls[op] ?? 0) + 1;
  }
  return request.apply(this, args);
};
setInterval(() => {
  process.stderr.write(`DDB ${JSON.stringify(calls)} at ${Date.now()}\n`);
  calls = {};
}, 1000).unref();
