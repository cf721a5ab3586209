import { join } from 'node:path';
import { build, type LogLevel } from 'esbuild';
import { esbuildOptionsOf } from './esbuild-options.ts';

/**
 * One handler bundled into `<outputDir>/index.mjs` with its source map, with the construct's
 * bundling options (`BUNDLING`, infra/constructs/service-function.ts) through `esbuildOptionsOf`:
 * the same build the benchmark and the bundle budget test measure. `cwd` is where esbuild resolves
 * the entry and the aliases from: the project root.
 */
export async function buildFunction(entry: string, outputDir: string, options: Record<string, unknown>, cwd: string): Promise<void> {
  await build({
    ...esbuildOptionsOf(options),
    absWorkingDir: cwd,
    entryPoints: [entry],
    outfile: join(outputDir, 'index.mjs'),
    logLevel: (options.logLevel as LogLevel | undefined) ?? 'warning',
  });
}
