import { join } from 'node:path';
import { build, type LogLevel } from 'esbuild';
import { esbuildOptionsOf } from './esbuild-options.ts';

/**
 * One handler bundled for the CDK app into `<outputDir>/index.mjs` with its source map, as
 * NodejsFunction wrote it: run in the synth's bundle worker (infra/bundling/function-bundles.ts)
 * for each function ServiceFunction bundles. esbuild runs through its JavaScript API, not
 * NodejsFunction's command line, because the bundles need a plugin (infra/bundling/sdk-package-info.ts)
 * and the command line takes none; the options are the construct's `BUNDLING` through
 * `esbuildOptionsOf`, the same the benchmark and the bundle budget test build with. `cwd` is where
 * esbuild resolves the entry and the aliases from: the project root.
 */
export async function bundleFunction(entry: string, outputDir: string, options: Record<string, unknown>, cwd: string): Promise<void> {
  await build({
    ...esbuildOptionsOf(options),
    absWorkingDir: cwd,
    entryPoints: [entry],
    outfile: join(outputDir, 'index.mjs'),
    logLevel: (options.logLevel as LogLevel | undefined) ?? 'warning',
  });
}
