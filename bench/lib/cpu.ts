import { readdirSync, readFileSync } from 'node:fs';

/** Linux USER_HZ: /proc reports CPU times in these ticks (100 on every mainstream kernel config). */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  comm: string;
  ppid: number;
  ticks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: split after the last ')'.
    const comm = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // rest[0] = state (field 3), rest[1] = ppid (4), rest[11] = utime (14), rest[12] = stime (15).
    return { comm, ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) };
  } catch {
    return undefined;
  }
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

/** Resident set size of `pid` in bytes (VmRSS); NaN when it is gone. */
export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** `pid` and every process below it. */
export function descendants(pid: number): number[] {
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return [pid];
  }
  const children = new Map<number, number[]>();
  for (const p of pids) {
    const st = readStat(p);
    if (!st) continue;
    const list = children.get(st.ppid) ?? [];
    list.push(p);
    children.set(st.ppid, list);
  }
  const out: number[] = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}

/**
 * The database processes below a server: its descendants except tsx's esbuild service (which
 * compiled the TypeScript at start-up and idles after). For our server that is the DynamoDB Local JVM.
 */
export function databaseProcesses(pid: number): number[] {
  return descendants(pid).filter((p) => p !== pid && readStat(p)?.comm !== 'esbuild');
}

/** CPU seconds of the given processes (each alone). */
export function cpuSecondsOf(pids: readonly number[]): number {
  return pids.reduce((a, p) => a + (readStat(p)?.ticks ?? 0), 0) / TICKS_PER_SECOND;
}
