import { type BuildOptions, build, type LogLevel } from 'esbuild';
import { esbuildOptionsOf } from './esbuild-options.ts';

/**
 * Where a function's bundle goes in its directory: the entry as `index.mjs` (Lambda's handler
 * stays `index.handler`), and what the code imports with `import()` as chunks beside it
 * (`chunks/<name>-<hash>.mjs`), loaded when first called: token exchange's code is not parsed at
 * every cold start of the token function (docs/benchmarks.md "Token function bundle, token
 * exchange"). Code splitting needs ESM output (`BUNDLING.format`). Every build of a function
 * bundle uses this layout: the CDK app, the bundle budget test, the bundle tests.
 */
export const FUNCTION_OUTPUT_LAYOUT = {
  splitting: true,
  entryNames: 'index',
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
} as const satisfies BuildOptions;

/**
 * One handler bundled for the CDK app into `<outputDir>` (`index.mjs`, its chunks and their source
 * maps), as NodejsFunction wrote `index.mjs`: run in the synth's bundle worker
 * (infra/bundling/function-bundles.ts) for each function ServiceFunction bundles. esbuild runs
 * through its JavaScript API, not NodejsFunction's command line, because the bundles need a plugin
 * (infra/bundling/sdk-package-info.ts) and the command line takes none; the options are the
 * construct's `BUNDLING` through `esbuildOptionsOf`, the same the benchmark and the bundle budget
 * test build with. `cwd` is where esbuild resolves the entry and the aliases from: the project root.
 */
export async function bundleFunction(entry: string, outputDir: string, options: Record<string, unknown>, cwd: string): Promise<void> {
  await build({
    ...esbuildOptionsOf(options),
    ...FUNCTION_OUTPUT_LAYOUT,
    absWorkingDir: cwd,
    entryPoints: [entry],
    outdir: outputDir,
    logLevel: (options.logLevel as LogLevel | undefined) ?? 'warning',
  });
}
