/**
 * Reading a V8 CPU profile (node:inspector's `Profiler.stop`): inclusive and self time per
 * function, and the time of each sample assigned to one named piece of a request (the first frame
 * from the leaf up that a piece claims). Used by bench/probes/profile-hot-path.ts (in process) and
 * bench/probes/profile-http.ts (the local server under HTTP load).
 */

export interface ProfileNode {
  id: number;
  hitCount?: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

/** A piece of the request: its label and the frames it claims (function name, file or package). */
export type Piece = [label: string, claims: (frame: ProfileNode['callFrame']) => boolean];

const shortName = (n: ProfileNode, root: string) =>
  `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(`file://${root}/`, '').replace(/.*node_modules\//, '')}:${n.callFrame.lineNumber + 1}`;

function tree(p: CpuProfile) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const busy = (n: ProfileNode) => n.callFrame.functionName !== '(idle)' && (n.hitCount ?? 0) > 0;
  return { byId, parent, busy };
}

/** Inclusive and self share per function (recursion counted once), as text rows scaled to µs per call. */
export function functionTable(p: CpuProfile, usPerCall: number, root: string, top = { self: 30, inclusive: 60 }): string {
  const { byId, parent, busy } = tree(p);
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  let total = 0;
  for (const n of p.nodes) {
    if (!busy(n)) continue;
    const hits = n.hitCount!;
    total += hits;
    const k0 = shortName(n, root);
    self.set(k0, (self.get(k0) ?? 0) + hits);
    const seen = new Set<string>();
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const k = shortName(byId.get(id)!, root);
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + hits);
    }
  }
  const rows = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${((v / total) * 100).toFixed(1).padStart(5)}%  ${((v / total) * usPerCall).toFixed(1).padStart(6)} µs  ${k}`)
      .join('\n');
  return `self time:\n${rows(self, top.self)}\n\ninclusive time:\n${rows(incl, top.inclusive)}\n`;
}

/**
 * Main-thread busy samples per piece (each sample to the first piece claiming a frame on its
 * stack, leaf first; `rest` when none does), as shares of the busy samples.
 */
export function pieceShares(p: CpuProfile, pieces: readonly Piece[], rest: string): Map<string, number> {
  const { byId, parent, busy } = tree(p);
  const counts = new Map<string, number>();
  let total = 0;
  for (const n of p.nodes) {
    if (!busy(n)) continue;
    let label = rest;
    outer: for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      for (const [l, claims] of pieces)
        if (claims(frame)) {
          label = l;
          break outer;
        }
    }
    counts.set(label, (counts.get(label) ?? 0) + n.hitCount!);
    total += n.hitCount!;
  }
  return new Map([...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / total]));
}

/** Wall time the main thread was busy in the profile (µs): the sampled time of every non-idle sample. */
export function busyMicros(p: CpuProfile): number {
  const idle = new Set(p.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let us = 0;
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  // A sample's time is the delta to the next sample.
  for (let i = 0; i < samples.length - 1; i++) if (!idle.has(samples[i]!)) us += deltas[i + 1]!;
  return us;
}
