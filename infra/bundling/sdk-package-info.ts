/**
 * An esbuild plugin of the Lambda bundles (infra/bundling/esbuild-options.ts): an AWS SDK
 * package's `package.json` is bundled as its `name` and `version` only. Each SDK client's
 * runtimeConfig does `import packageInfo from "../package.json"` and reads `packageInfo.version`
 * alone (for its User-Agent, `api/dynamodb#<version>`); the whole file (description, scripts,
 * dependencies, devDependencies...) cost the token bundle 4.2 KB for DynamoDB and KMS
 * (docs/benchmarks.md "Token function bundle, third round"). The import is relative, which no
 * esbuild alias can redirect, hence a plugin, and why the construct runs esbuild itself
 * (infra/bundling/bundle-function.ts) rather than NodejsFunction's command line, which takes none.
 * test/infra/sdk-package-info.test.ts checks that no bundled SDK module reads another field.
 */
import { readFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

/** `node_modules/@aws-sdk/<package>/package.json`, with either separator. */
export const SDK_PACKAGE_JSON = /[\\/]node_modules[\\/]@aws-sdk[\\/][^\\/]+[\\/]package\.json$/;

export const sdkPackageInfo: Plugin = {
  name: 'sdk-package-info',
  setup(build) {
    build.onLoad({ filter: SDK_PACKAGE_JSON }, async ({ path }) => {
      const { name, version } = JSON.parse(await readFile(path, 'utf8')) as { name: string; version: string };
      return { contents: JSON.stringify({ name, version }), loader: 'json' };
    });
  },
};
