/**
 * The bundle the CDK app deploys is the one the budget test measures (test/bench/token-bundle-size.test.ts)
 * and the benchmark starts: the token function synthesized by the real construct, with real
 * bundling (infra/bundling/bundle-function.ts, as `npm run synth` runs it), is byte for byte the
 * bundle `esbuildOptionsOf(BUNDLING)` builds (entry and chunks, infra/bundling/bundle-function.ts),
 * carries each cut (docs/benchmarks.md "Token function bundle"): no credential chain, no
 * mnemonist, the SDK clients' package.json as name and version only; and node loads its lazily
 * imported token-exchange chunk from the deployed layout.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_OUTPUT_LAYOUT } from '../../infra/bundling/bundle-function.ts';
import { esbuildOptionsOf } from '../../infra/bundling/esbuild-options.ts';
import { BUNDLING, PROJECT_ROOT } from '../../infra/constructs/service-function.ts';

const require = createRequire(import.meta.url);
const outdir = mkdtempSync(join(tmpdir(), 'function-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

let asset: string;

/** The asset's files, relative to it (chunks are in `chunks/`). */
const filesOf = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();

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
  it('is index.mjs and its chunks with their source maps, byte for byte what esbuildOptionsOf(BUNDLING) builds', async () => {
    const files = filesOf(asset);
    expect(files).toEqual(expect.arrayContaining(['index.mjs', 'index.mjs.map']));
    expect(files.filter((f) => f.startsWith('chunks/')).length).toBeGreaterThan(0);
    expect(files.filter((f) => !/^(index|chunks\/[\w-]+)\.mjs(\.map)?$/.test(f))).toEqual([]);
    const measuredDir = join(outdir, 'measured');
    const out = await build({
      ...esbuildOptionsOf(BUNDLING),
      ...FUNCTION_OUTPUT_LAYOUT,
      absWorkingDir: PROJECT_ROOT,
      entryPoints: ['functions/oauth/token.ts'],
      outdir: measuredDir,
      write: false,
      logLevel: 'error',
    });
    expect(out.outputFiles.map((f) => relative(measuredDir, f.path)).sort()).toEqual(files);
    for (const f of out.outputFiles)
      expect(readFileSync(join(asset, relative(measuredDir, f.path))).equals(Buffer.from(f.contents)), f.path).toBe(true);
  });

  it('loads with node as Lambda does, and its token-exchange chunk loads on import()', async () => {
    // Lambda imports index.mjs; the grant's handle and the handler's dependencies import() the
    // exchange's chunks, which must resolve beside it in the deployed layout.
    const code = readFileSync(join(asset, 'index.mjs'), 'utf8');
    const lazy = [...code.matchAll(/import\("\.\/(chunks\/[\w-]+\.mjs)"\)/g)].map((m) => m[1]!);
    expect(lazy.filter((c) => c.startsWith('chunks/token-exchange')).length).toBe(2);
    const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(join(asset, 'index.mjs')).href)});
      const chunks = [];
      for (const c of ${JSON.stringify(lazy.filter((c) => c.startsWith('chunks/token-exchange')))})
        chunks.push(Object.keys(await import(new URL(c, ${JSON.stringify(pathToFileURL(`${asset}/`).href)}).href)).length);
      console.log(JSON.stringify({ handler: typeof handler, chunks }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: asset, timeout: 30_000 });
    const loaded = JSON.parse(stdout.trim().split('\n').at(-1)!) as { handler: string; chunks: number[] };
    expect(loaded.handler).toBe('function');
    expect(loaded.chunks).toHaveLength(2);
    for (const exports of loaded.chunks) expect(exports).toBeGreaterThan(0);
  });

  it('carries the cuts: no credential chain, no mnemonist or obliterator, no SDK package.json beyond name and version', () => {
    const maps = filesOf(asset).filter((f) => f.endsWith('.map'));
    const sources = maps.flatMap((m) => (JSON.parse(readFileSync(join(asset, m), 'utf8')) as { sources: string[] }).sources);
    expect(sources.filter((s) => /node_modules\/(mnemonist|obliterator|@aws-sdk\/credential-provider-node)\//.test(s))).toEqual([]);
    for (const standIn of ['infra/bundling/env-credential-provider.ts', 'infra/bundling/endpoint-lru-cache.ts'])
      expect(sources.some((s) => s.endsWith(standIn))).toBe(true);
    const code = filesOf(asset)
      .filter((f) => f.endsWith('.mjs'))
      .map((f) => readFileSync(join(asset, f), 'utf8'))
      .join('\n');
    for (const pkg of ['@aws-sdk/client-dynamodb', '@aws-sdk/client-kms']) {
      const { version, description } = require(`${pkg}/package.json`) as { version: string; description: string };
      expect(code).toContain(version);
      expect(code).not.toContain(description);
    }
  });
});
