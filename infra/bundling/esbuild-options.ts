import type { BuildOptions } from 'esbuild';
import { sdkPackageInfo } from './sdk-package-info.ts';

/**
 * The construct's bundling options (`BUNDLING`, infra/constructs/service-function.ts, in
 * NodejsFunction's `BundlingOptions` shape) as esbuild options (`--bundle --platform=node --format
 * --target --minify --sourcemap --sources-content --main-fields --external --banner:js --alias`),
 * plus the plugins no command-line flag can give (infra/bundling/sdk-package-info.ts). The CDK app
 * bundles every function with exactly these (infra/bundling/bundle-function.ts), and so do the
 * benchmark's cold starts and the token bundle's budget test. An option this does not know fails
 * rather than being silently left out.
 */
export function esbuildOptionsOf(b: Record<string, unknown>): BuildOptions {
  const known = ['format', 'target', 'minify', 'sourceMap', 'sourcesContent', 'mainFields', 'externalModules', 'banner', 'esbuildArgs'];
  // `esbuildArgs` are esbuild command-line flags; only `--alias:<package>` is understood here.
  const args = Object.entries((b.esbuildArgs as Record<string, string | boolean> | undefined) ?? {});
  const otherArgs = args.filter(([k, v]) => !k.startsWith('--alias:') || typeof v !== 'string').map(([k]) => k);
  if (otherArgs.length)
    throw new Error(
      `infra/constructs/service-function.ts BUNDLING.esbuildArgs has ${otherArgs.join(', ')}: teach esbuildOptionsOf (infra/bundling/esbuild-options.ts) what esbuild option each is`,
    );
  const alias = Object.fromEntries(args.map(([k, v]) => [k.slice('--alias:'.length), v as string]));
  // What esbuild prints and the environment of the esbuild process: no effect on the bundle.
  const outputNeutral = ['logLevel', 'environment'];
  const unknown = Object.keys(b).filter((k) => !known.includes(k) && !outputNeutral.includes(k));
  if (unknown.length)
    throw new Error(
      `infra/constructs/service-function.ts BUNDLING has ${unknown.join(', ')}: teach esbuildOptionsOf (infra/bundling/esbuild-options.ts) what esbuild option each is`,
    );
  return {
    bundle: true,
    platform: 'node',
    format: b.format as BuildOptions['format'],
    target: b.target as string,
    minify: b.minify as boolean,
    sourcemap: b.sourceMap as boolean,
    sourcesContent: b.sourcesContent as boolean,
    mainFields: [...(b.mainFields as string[])],
    external: [...((b.externalModules as string[] | undefined) ?? [])],
    ...(typeof b.banner === 'string' ? { banner: { js: b.banner } } : {}),
    ...(args.length ? { alias } : {}),
    plugins: [sdkPackageInfo],
  };
}
