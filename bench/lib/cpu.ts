import { readdirSync, readFileSync } from 'node:fs';

/** Linux USER_HZ: /proc reports CPU times in these ticks (100 on every mainstream kernel config). */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  ppid: number;
  ticks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: split after the last ')'.
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // rest[0] = state (field 3), rest[1] = ppid (4), rest[11] = utime (14), rest[12] = stime (15).
    return { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system, every thread) used so far by `pid` and all its descendants, from
 * /proc: for our server that is the node process and the DynamoDB Local JVM it spawned. Dividing a
 * run's CPU seconds by its wall time gives the share of a core the server really got, which on a
 * shared machine can be far below 1; requests per CPU-second is the contention-robust efficiency.
 * Returns NaN where /proc is not available.
 */
export function treeCpuSeconds(pid: number): number {
  let pids: number[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  } catch {
    return Number.NaN;
  }
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const p of pids) {
    const st = readStat(p);
    if (!st) continue;
    ticks.set(p, st.ticks);
    const list = children.get(st.ppid) ?? [];
    list.push(p);
    children.set(st.ppid, list);
  }
  if (!ticks.has(pid)) return Number.NaN;
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    total += ticks.get(p) ?? 0;
    stack.push(...(children.get(p) ?? []));
  }
  return total / TICKS_PER_SECOND;
}

/** CPU seconds (user + system, every thread) of `pid` alone. */
export function processCpuSeconds(pid: number): number {
  const st = readStat(pid);
  return st ? st.ticks / TICKS_PER_SECOND : Number.NaN;
}

/** CPU seconds of this process (all threads). */
export function selfCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/**
 * Scheduler time of `pid`'s threads from /proc/<pid>/task/<tid>/schedstat: seconds on a CPU, and
 * seconds runnable but waiting for one (another process had the core). A server that waits a lot
 * was starved by the machine, not slow; one with neither run nor wait time was idle.
 */
export function schedSeconds(pid: number): { run: number; wait: number } {
  let run = 0;
  let wait = 0;
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      try {
        const [a, b] = readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ').map(Number);
        run += a ?? 0;
        wait += b ?? 0;
      } catch {
        /* thread exited */
      }
    }
  } catch {
    return { run: Number.NaN, wait: Number.NaN };
  }
  return { run: run / 1e9, wait: wait / 1e9 };
}
