import { readdirSync, readFileSync } from 'node:fs';

/** Linux USER_HZ: /proc reports CPU times in these ticks (100 on every mainstream kernel config). */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  comm: string;
  ppid: number;
  ticks: number;
}

function readStat(pid: number, path = `/proc/${pid}/stat`): ProcStat | undefined {
  try {
    const s = readFileSync(path, 'utf8');
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
 * Scheduler time of `pid`'s MAIN thread (/proc/<pid>/task/<pid>/schedstat): seconds on a CPU, and
 * seconds runnable but waiting for one. Only the main thread: a process's own GC, JIT and libuv
 * threads share its core when it is pinned, and their waits for each other are not starvation (a
 * busy multi-threaded server on one pinned core summed over every thread looked "starved" with
 * nobody else on the machine).
 */
export function mainThreadSchedSeconds(pid: number): { run: number; wait: number } {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { run: (run ?? Number.NaN) / 1e9, wait: (wait ?? Number.NaN) / 1e9 };
  } catch {
    return { run: Number.NaN, wait: Number.NaN };
  }
}

/**
 * Busy seconds of one core from a /proc/stat text: its `cpuN` line's user, nice, system, irq,
 * softirq and steal ticks (everything but idle and iowait; guest time is already inside user).
 * Steal counts as busy: another virtual machine had the core. NaN when the line is missing.
 */
export function coreBusySecondsOf(procStat: string, core: number): number {
  const line = procStat.split('\n').find((l) => l.startsWith(`cpu${core} `));
  if (!line) return Number.NaN;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return [user, nice, system, irq, softirq, steal].reduce<number>((a, t) => a + (t ?? 0), 0) / TICKS_PER_SECOND;
}

/** Busy seconds of `core` so far (see `coreBusySecondsOf`). */
export function coreBusySeconds(core: number): number {
  try {
    return coreBusySecondsOf(readFileSync('/proc/stat', 'utf8'), core);
  } catch {
    return Number.NaN;
  }
}

/**
 * Waits until `core` is quiet: busy under `maxShare` of a `windowMs` window, or `timeoutMs` has
 * passed. Returns the last window's busy share. Latency samples taken right after servers and
 * JVMs start would otherwise carry their start-up compiling.
 */
export async function settleCore(core: number, o = { maxShare: 0.1, windowMs: 500, timeoutMs: 30_000 }): Promise<number> {
  const until = Date.now() + o.timeoutMs;
  for (;;) {
    const before = coreBusySeconds(core);
    await new Promise((r) => setTimeout(r, o.windowMs));
    const share = (coreBusySeconds(core) - before) / (o.windowMs / 1000);
    if (!(share > o.maxShare) || Date.now() >= until) return share;
  }
}

/**
 * The share of a run's wall time that OTHER processes took from a side's core: the core's busy
 * time over the run minus the CPU of the side's own processes (server + database), over the wall
 * time, clamped to [0, 1] (the two are counted in 10 ms ticks, so a quiet run can read a hair
 * below zero).
 */
export function othersShareOfCore(coreBusyS: number, ownCpuS: number, wallS: number): number {
  return Math.min(1, Math.max(0, (coreBusyS - ownCpuS) / wallS));
}

/** A server's memory as it reports it (`process.memoryUsage()`, bench/servers/announce.ts). */
export interface ProcessMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
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

/**
 * CPU seconds of the given processes, in all, of their garbage collector, and of their JIT compiler threads alone (HotSpot names
 * them `C1 CompilerThre…` and `C2 CompilerThre…`). A JVM that has not yet compiled the paths a
 * request takes spends more on compiling them than on the request itself: DynamoDB Local's
 * compilers took 16.5 ms per password grant over its first 100 grants, about 3 ms around 1,000 and
 * about 2 ms around 2,000 (docs/benchmarks.md "Password grant: the database's JIT"). Only threads
 * alive at the reading count: JDK 17 may end an idle compiler thread beyond the first of each
 * kind (UseDynamicNumberOfCompilerThreads), and its ticks would drop out of a difference; with
 * two CPUs, as here, the JVM runs one of each and never ends them.
 */
export function jvmCpuSecondsOf(pids: readonly number[]): { all: number; compiler: number; gc: number } {
  let compiler = 0;
  let gc = 0;
  for (const pid of pids) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      const st = readStat(pid, `/proc/${pid}/task/${t}/stat`);
      if (st && /^C\d CompilerThre/.test(st.comm)) compiler += st.ticks;
      // The collector's threads; a JVM pinned to one core picks the serial collector, which
      // collects in the VM thread (its other safepoint work is small beside it).
      else if (st && /^(GC Thread|G1 |VM Thread)/.test(st.comm)) gc += st.ticks;
    }
  }
  return { all: cpuSecondsOf(pids), compiler: compiler / TICKS_PER_SECOND, gc: gc / TICKS_PER_SECOND };
}

/** CPU seconds of the given processes (each alone). */
export function cpuSecondsOf(pids: readonly number[]): number {
  return pids.reduce((a, p) => a + (readStat(p)?.ticks ?? 0), 0) / TICKS_PER_SECOND;
}
