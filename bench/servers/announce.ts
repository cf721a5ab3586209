import { writeSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { LoopReport } from '../lib/proc.ts';

/**
 * Says "ready" to the bench. The bench opens fd 3 for it and sends the server's stdout to
 * /dev/null, so that per-request log lines cost a write (as in Lambda) but can never fill a pipe
 * and stall the server while the bench is busy generating load. Run by hand, the line goes to stdout.
 */
export function announceReady(line: string): void {
  const fd = Number(process.env.BENCH_READY_FD ?? 1);
  writeSync(fd, line);
}

/**
 * On SIGUSR2 the server writes one line `{"memory": process.memoryUsage(), "loop": LoopReport}`
 * to the same channel, and starts counting the loop anew: how the bench reads a server's heap,
 * and its event-loop delay and GC pauses over one run, without an HTTP route of its own (the open
 * loop's "stall" columns, docs/benchmarks.md "The open-loop stall").
 */
export function answerMemoryRequests(): void {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const gc = { count: 0, totalMs: 0, maxMs: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.totalMs += e.duration;
      gc.maxMs = Math.max(gc.maxMs, e.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  process.on('SIGUSR2', () => {
    const loop: LoopReport = {
      delayP50Ms: ms(delay.percentile(50)),
      delayP99Ms: ms(delay.percentile(99)),
      delayMaxMs: ms(delay.max),
      gcCount: gc.count,
      gcTotalMs: Math.round(gc.totalMs * 100) / 100,
      gcMaxMs: Math.round(gc.maxMs * 100) / 100,
    };
    delay.reset();
    Object.assign(gc, { count: 0, totalMs: 0, maxMs: 0 });
    announceReady(`${JSON.stringify({ memory: process.memoryUsage(), loop })}\n`);
  });
}
