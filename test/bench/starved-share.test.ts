/**
 * The bench's "starved share" (bench/lib/cpu.ts, load.ts `serverWaitShare`): the share of a run
 * other processes took from the server core, computed from /proc/stat's line for that core minus
 * the side's own CPU. Synthetic /proc readings: no timing is asserted.
 */
import { describe, expect, it } from 'vitest';
import { coreBusySecondsOf, mainThreadSchedSeconds, othersShareOfCore } from '../../bench/lib/cpu.ts';

/** A /proc/stat text with the given cpu0 and cpu1 ticks (user nice system idle iowait irq softirq steal guest guest_nice). */
const procStat = (cpu0: number[], cpu1: number[]) =>
  [
    `cpu  ${cpu0.map((t, i) => t + (cpu1[i] ?? 0)).join(' ')}`,
    `cpu0 ${cpu0.join(' ')}`,
    `cpu1 ${cpu1.join(' ')}`,
    'intr 12345 0 0',
    'ctxt 987654',
  ].join('\n');

describe('starved share', () => {
  it("reads one core's busy ticks: user, nice, system, irq, softirq and steal; not idle, iowait or guest (inside user already)", () => {
    const stat = procStat([100, 10, 50, 9000, 40, 3, 7, 20, 60, 0], [5, 0, 5, 100, 0, 0, 0, 0, 0, 0]);
    expect(coreBusySecondsOf(stat, 0)).toBeCloseTo((100 + 10 + 50 + 3 + 7 + 20) / 100, 10);
    expect(coreBusySecondsOf(stat, 1)).toBeCloseTo(0.1, 10);
    // `cpu1` is not the prefix of another core's line, and a core the machine lacks is NaN.
    expect(coreBusySecondsOf(`${stat}\ncpu10 999 0 0 0 0 0 0 0 0 0`, 1)).toBeCloseTo(0.1, 10);
    expect(coreBusySecondsOf(stat, 2)).toBeNaN();
  });

  it('is what the core did beyond the side: 0 when only the side ran, the others share when they took part of it', () => {
    const before = procStat([1000, 0, 200, 50_000, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    // 5 s run: the core was busy 480 ticks (4.8 s) and the side's server + database used 4.8 s.
    const quiet = procStat([1400, 0, 280, 50_020, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const busyQuiet = coreBusySecondsOf(quiet, 0) - coreBusySecondsOf(before, 0);
    expect(busyQuiet).toBeCloseTo(4.8, 10);
    expect(othersShareOfCore(busyQuiet, 4.8, 5)).toBeCloseTo(0, 10);
    // A multi-threaded side (GC, libuv threads waiting for its main thread) is still 0: only
    // other processes' time counts, whatever the side's threads did among themselves.
    // Busy the whole 5 s, the side used 3 s of it: others took 2 s, 0.4 of the run.
    const shared = procStat([1300, 100, 300, 50_000, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const busyShared = coreBusySecondsOf(shared, 0) - coreBusySecondsOf(before, 0);
    expect(othersShareOfCore(busyShared, 3, 5)).toBeCloseTo(0.4, 10);
    // Steal (another virtual machine had the core) counts as taken by others.
    const stolen = procStat([1300, 0, 200, 50_000, 0, 0, 0, 100, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(othersShareOfCore(coreBusySecondsOf(stolen, 0) - coreBusySecondsOf(before, 0), 3, 5)).toBeCloseTo(0.2, 10);
  });

  it('clamps the tick rounding of a quiet run at 0 and a fully taken core at 1', () => {
    expect(othersShareOfCore(4.79, 4.8, 5)).toBe(0);
    expect(othersShareOfCore(5.2, 0, 5)).toBe(1);
  });

  it("reads the main thread's scheduler times of a live process, NaN for one that is gone", () => {
    const own = mainThreadSchedSeconds(process.pid);
    expect(own.run).toBeGreaterThan(0);
    expect(own.wait).toBeGreaterThanOrEqual(0);
    expect(mainThreadSchedSeconds(2 ** 22 + 1).run).toBeNaN();
  });
});
