import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';

export interface ProfileArea {
  area: string;
  /** Share of the sampled CPU time (self time), 0..1. */
  share: number;
}

interface ProfileNode {
  id: number;
  hitCount?: number;
  callFrame: { functionName: string; url: string };
}

/**
 * Where the CPU time of `work` goes, by area: the V8 sampling profiler (node:inspector, in this
 * process) attributes each sample's self time to the function on top of the stack; samples are then
 * grouped by where that function lives: our code by top folder and file (`shared/oauth`), a
 * dependency by package (`@middy/core`, `jose`), Node's internals and native code (crypto) as
 * `node:` / `(native)`, garbage collection as `(gc)`.
 */
export async function profileAreas(
  work: () => Promise<void>,
  root: string,
  top = 20,
): Promise<{ areas: ProfileArea[]; topFunctions: ProfileArea[] }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  let profile: { nodes: ProfileNode[] };
  try {
    await work();
  } finally {
    ({ profile } = (await session.post('Profiler.stop')) as unknown as { profile: { nodes: ProfileNode[] } });
    await session.post('Profiler.disable');
    session.disconnect();
  }
  const byArea = new Map<string, number>();
  const byFn = new Map<string, number>();
  let total = 0;
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    if (!hits) continue;
    const { functionName, url } = n.callFrame;
    if (functionName === '(idle)') continue;
    total += hits;
    const area = areaOf(functionName, url, root);
    byArea.set(area, (byArea.get(area) ?? 0) + hits);
    const fn = `${functionName || '(anonymous)'} ${area}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + hits);
  }
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([area, hits]) => ({ area, share: Math.round((hits / total) * 1000) / 1000 }));
  return { areas: rank(byArea), topFunctions: rank(byFn) };
}

function areaOf(functionName: string, url: string, root: string): string {
  if (functionName === '(garbage collector)') return '(gc)';
  if (functionName === '(program)') return '(program: V8/runtime)';
  if (!url) return '(native: crypto, buffers, V8 builtins)';
  if (url.startsWith('node:')) return 'node: (Node.js internals)';
  const path = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = path.slice(nm + 14).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const rel = relative(root, path);
  const segs = rel.split('/');
  return segs.length > 2 ? `${segs[0]}/${segs[1]}` : rel;
}
