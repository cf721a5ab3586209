/**
 * Bundles one handler for the CDK app: run by ServiceFunction's local bundling
 * (infra/constructs/service-function.ts) as `node --import tsx infra/bundling/bundle-function.ts
 * <entry> <outputDir> <bundling options as JSON>`, from the project root. esbuild runs through its
 * JavaScript API, not NodejsFunction's command line, because the bundles need a plugin
 * (infra/bundling/sdk-package-info.ts) and the command line takes none; the options are the
 * construct's `BUNDLING` through `esbuildOptionsOf`, the same the benchmark and the bundle budget
 * test build with. A child process because CDK bundling is synchronous and esbuild's synchronous
 * API takes no plugins either. Writes `index.mjs` and its source map, as NodejsFunction did.
 */
import { join } from 'node:path';
import { build, type LogLevel } from 'esbuild';
import { esbuildOptionsOf } from './esbuild-options.ts';

const [entry, outputDir, optionsJson] = process.argv.slice(2);
if (!entry || !outputDir || !optionsJson) throw new Error('usage: bundle-function.ts <entry> <outputDir> <bundling options as JSON>');
const options = JSON.parse(optionsJson) as Record<string, unknown>;

await build({
  ...esbuildOptionsOf(options),
  absWorkingDir: process.cwd(),
  entryPoints: [entry],
  outfile: join(outputDir, 'index.mjs'),
  logLevel: (options.logLevel as LogLevel | undefined) ?? 'warning',
});
