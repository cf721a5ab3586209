/** Small statistics helpers; every reported "median" in the bench comes from here. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile of a sample (p in 0..100); NaN for an empty sample. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** Rounds for display and JSON: 3 significant decimals below 10, 1 below 1000, none above. */
export function round(n: number): number {
  if (!Number.isFinite(n)) return n;
  const a = Math.abs(n);
  if (a >= 1000) return Math.round(n);
  if (a >= 10) return Math.round(n * 10) / 10;
  return Math.round(n * 1000) / 1000;
}

/** Times `fn` once, in milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}
