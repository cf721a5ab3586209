import { selfCpuSeconds } from './cpu.ts';

export interface Rate {
  /** Calls per wall-clock second. */
  perSec: number;
  /** Calls per CPU-second this process used (all its threads): what one free core would do. */
  perCpuSec: number;
  count: number;
  seconds: number;
  warmupCount: number;
}

/**
 * Runs `fn` back to back (one call in flight, as one Lambda container handles one event at a time)
 * for `seconds` after `warmupSeconds` of unmeasured calls; returns calls per second.
 */
export async function opsPerSecond(fn: () => Promise<unknown> | unknown, seconds: number, warmupSeconds = 1): Promise<Rate> {
  let end = performance.now() + warmupSeconds * 1000;
  let warmupCount = 0;
  while (performance.now() < end) {
    await fn();
    warmupCount++;
  }
  let count = 0;
  const c0 = selfCpuSeconds();
  const t0 = performance.now();
  end = t0 + seconds * 1000;
  while (performance.now() < end) {
    // Check the clock every 16 calls: performance.now() is cheap but not free at 50k calls/s.
    for (let i = 0; i < 16; i++) await fn();
    count += 16;
  }
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = selfCpuSeconds() - c0;
  return { perSec: count / elapsed, perCpuSec: count / cpu, count, seconds: elapsed, warmupCount };
}

/** Same, for synchronous work (raw crypto): no promise per call. */
export function syncOpsPerSecond(fn: () => unknown, seconds: number, warmupSeconds = 0.5): Rate {
  let end = performance.now() + warmupSeconds * 1000;
  while (performance.now() < end) fn();
  let count = 0;
  const c0 = selfCpuSeconds();
  const t0 = performance.now();
  end = t0 + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 64; i++) fn();
    count += 64;
  }
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = selfCpuSeconds() - c0;
  return { perSec: count / elapsed, perCpuSec: count / cpu, count, seconds: elapsed, warmupCount: 0 };
}
