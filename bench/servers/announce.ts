import { writeSync } from 'node:fs';

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
 * On SIGUSR2 the server writes one line `{"memory": process.memoryUsage()}` to the same channel:
 * how the bench reads a server's heap at rest and under load without an HTTP route of its own.
 */
export function answerMemoryRequests(): void {
  process.on('SIGUSR2', () => announceReady(`${JSON.stringify({ memory: process.memoryUsage() })}\n`));
}
