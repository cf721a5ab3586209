/**
 * infra/bundling/sdk-package-info.ts bundles an AWS SDK package's package.json as its name and
 * version only. That holds only while no SDK module reads another field: checked here over every
 * installed SDK package, and the User-Agent a bundled client sends is checked to still carry the
 * client's real version.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { esbuildOptionsOf } from '../../infra/bundling/esbuild-options.ts';
import { SDK_PACKAGE_JSON } from '../../infra/bundling/sdk-package-info.ts';
import { BUNDLING, PROJECT_ROOT } from '../../infra/constructs/service-function.ts';

const require = createRequire(import.meta.url);
const sdkDir = join(PROJECT_ROOT, 'node_modules/@aws-sdk');

/** Every ESM module of every installed `@aws-sdk/*` package, as the bundles resolve them (`module` field). */
function sdkModules(): { file: string; source: string }[] {
  return readdirSync(sdkDir).flatMap((pkg) => {
    const dist = join(sdkDir, pkg, 'dist-es');
    let files: string[];
    try {
      files = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    } catch {
      return [];
    }
    return files.map((f) => ({ file: join(pkg, 'dist-es', f), source: readFileSync(join(dist, f), 'utf8') }));
  });
}

const outdir = mkdtempSync(join(tmpdir(), 'sdk-package-info-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('sdk-package-info: an SDK package.json bundled as name and version', () => {
  it('matches the SDK packages package.json files only', () => {
    expect(SDK_PACKAGE_JSON.test('/x/node_modules/@aws-sdk/client-dynamodb/package.json')).toBe(true);
    expect(SDK_PACKAGE_JSON.test('C:\\x\\node_modules\\@aws-sdk\\client-kms\\package.json')).toBe(true);
    expect(SDK_PACKAGE_JSON.test('/x/node_modules/@smithy/core/package.json')).toBe(false);
    expect(SDK_PACKAGE_JSON.test('/x/node_modules/@aws-sdk/client-kms/dist-es/package.json')).toBe(false);
    expect(SDK_PACKAGE_JSON.test('/x/package.json')).toBe(false);
  });

  it('no installed SDK module reads a field of its package.json other than version', () => {
    const importers = sdkModules().flatMap(({ file, source }) => {
      const m = /^import (\w+) from "(?:\.\.\/)+package\.json";$/m.exec(source);
      if (!m) {
        // Any other way of reaching a package.json (named imports, require, a dynamic import) is a finding.
        expect(/["'](?:\.{1,2}\/)+package\.json["']/.test(source), `${file} reaches a package.json another way`).toBe(false);
        return [];
      }
      const uses = [...source.matchAll(new RegExp(`\\b${m[1]}\\b(\\.\\w+)?`, 'g'))].slice(1).map((u) => u[1] ?? '(the whole object)');
      return [{ file, uses: [...new Set(uses)] }];
    });
    expect(importers.map((i) => i.file)).toEqual(
      expect.arrayContaining(['client-dynamodb/dist-es/runtimeConfig.js', 'client-kms/dist-es/runtimeConfig.js']),
    );
    for (const { file, uses } of importers) expect(uses, file).toEqual(['.version']);
  });

  it("a bundled client's User-Agent still names the client's version; the package.json's other fields are gone", async () => {
    const contents = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
const agents = [];
for (const C of [DynamoDBClient, KMSClient]) agents.push((await new C({ region: 'eu-west-1' }).config.defaultUserAgentProvider()).map((p) => p.join('#')));
process.stdout.write(JSON.stringify(agents));`;
    /** The two clients' User-Agents and the bundle's text, bundled with or without the plugin. */
    const bundled = async (plugin: boolean) => {
      const options = esbuildOptionsOf(BUNDLING);
      const outfile = join(outdir, plugin ? 'with.mjs' : 'without.mjs');
      await build({
        ...options,
        plugins: plugin ? options.plugins! : options.plugins!.filter((p) => p.name !== 'sdk-package-info'),
        absWorkingDir: PROJECT_ROOT,
        stdin: { contents, resolveDir: PROJECT_ROOT, sourcefile: 'user-agents.mjs', loader: 'js' },
        outfile,
        logLevel: 'error',
      });
      const { stdout } = await promisify(execFile)(process.execPath, [outfile], { cwd: outdir });
      return { agents: JSON.parse(stdout) as string[][], text: readFileSync(outfile, 'utf8') };
    };
    const withPlugin = await bundled(true);
    const without = await bundled(false);
    const dynamodbPkg = require('@aws-sdk/client-dynamodb/package.json') as { version: string; description: string };
    const kmsPkg = require('@aws-sdk/client-kms/package.json') as { version: string; description: string };
    // The same User-Agents, each with its client's version from package.json.
    expect(withPlugin.agents).toEqual(without.agents);
    expect(withPlugin.agents[0]).toContain(`aws-sdk-js#${dynamodbPkg.version}`);
    expect(withPlugin.agents[1]).toContain(`aws-sdk-js#${kmsPkg.version}`);
    // The rest of each package.json is gone (and was there without the plugin).
    for (const description of [dynamodbPkg.description, kmsPkg.description]) {
      expect(without.text).toContain(description);
      expect(withPlugin.text).not.toContain(description);
    }
    expect(without.text).toContain('devDependencies');
    expect(withPlugin.text).not.toContain('devDependencies');
  }, 60_000);
});
