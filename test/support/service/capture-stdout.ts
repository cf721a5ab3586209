import { vi } from 'vitest';

/** Every chunk `fn` writes to stdout (where Powertools logs and publishes metrics); nothing reaches the terminal. */
export async function captureStdout(fn: () => Promise<void>): Promise<string[]> {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return chunks;
}

/** Every line `fn` writes to stdout, parsed as JSON. */
export async function captureLogLines(fn: () => Promise<void>): Promise<{ raw: string; lines: Record<string, unknown>[] }> {
  const chunks = await captureStdout(fn);
  return { raw: chunks.join('\n'), lines: chunks.map((l) => JSON.parse(l) as Record<string, unknown>) };
}
