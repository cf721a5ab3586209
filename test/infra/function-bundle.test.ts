/**
 * The bundle the CDK app deploys is the one the budget test measures (test/bench/token-bundle-size.test.ts)
 * and the benchmark starts: the token function synthesized by the real construct, with real
 * bundling (infra/bundling/bundle-function.ts, as `npm run synth` runs it), is byte for byte the
 * bundle `esbuildOptionsOf(BUNDLING)` builds, and carries each cut (docs/benchmarks.md "Token
 * function bundle"): no credential chain, no mnemonist, the SDK clients' package.json as name and
 * version only.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptionsOf } from '../../infra/bundling/esbuild-options.ts';
import { BUNDLING, PROJECT_ROOT } from '../../infra/constructs/service-function.ts';

const require = createRequire(import.meta.url);
const outdir = mkdtempSync(join(tmpdir(), 'function-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

let asset: string;

beforeAll(async () => {
  // The token function as RouteApi deploys it: on the hot path, platform tracing (no X-Ray SDK).
  await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'test/infra/bundle-one-function.ts', outdir, 'functions/oauth/token', 'platform'],
    {
      cwd: PROJECT_ROOT,
      timeout: 110_000,
    },
  );
  const [dir] = readdirSync(outdir).filter((d) => d.startsWith('asset.') && statSync(join(outdir, d)).isDirectory());
  asset = join(outdir, dir!);
}, 120_000);

describe("the token function's deployed bundle", () => {
  it('is index.mjs with its source map, byte for byte what esbuildOptionsOf(BUNDLING) builds', async () => {
    expect(readdirSync(asset).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    const out = await build({
      ...esbuildOptionsOf(BUNDLING),
      absWorkingDir: PROJECT_ROOT,
      entryPoints: ['functions/oauth/token.ts'],
      outfile: join(outdir, 'measured', 'index.mjs'),
      write: false,
      logLevel: 'error',
    });
    const measured = out.outputFiles.find((f) => f.path.endsWith('.mjs'))!;
    expect(readFileSync(join(asset, 'index.mjs')).equals(Buffer.from(measured.contents))).toBe(true);
  });

  it('carries the cuts: no credential chain, no mnemonist or obliterator, no SDK package.json beyond name and version', () => {
    const sources = (JSON.parse(readFileSync(join(asset, 'index.mjs.map'), 'utf8')) as { sources: string[] }).sources;
    expect(sources.filter((s) => /node_modules\/(mnemonist|obliterator|@aws-sdk\/credential-provider-node)\//.test(s))).toEqual([]);
    for (const standIn of ['infra/bundling/env-credential-provider.ts', 'infra/bundling/endpoint-lru-cache.ts'])
      expect(sources.some((s) => s.endsWith(standIn))).toBe(true);
    const code = readFileSync(join(asset, 'index.mjs'), 'utf8');
    for (const pkg of ['@aws-sdk/client-dynamodb', '@aws-sdk/client-kms']) {
      const { version, description } = require(`${pkg}/package.json`) as { version: string; description: string };
      expect(code).toContain(version);
      expect(code).not.toContain(description);
    }
  });
});
