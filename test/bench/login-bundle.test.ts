/**
 * The login function's bundle (docs/benchmarks.md "Login function with passkeys"): @simplewebauthn/server
 * and its dependencies are a chunk only an `import()` reaches, loaded on the first passkey step
 * that verifies or registers, so showing the login page and a password sign-in never parse them.
 * Built as the CDK app builds it (the construct's `BUNDLING` and `FUNCTION_OUTPUT_LAYOUT`).
 */
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_OUTPUT_LAYOUT } from '../../infra/bundling/bundle-function.ts';
import { esbuildOptionsOf } from '../../infra/bundling/esbuild-options.ts';
import { BUNDLING, PROJECT_ROOT } from '../../infra/constructs/service-function.ts';

let metafile: Metafile;
let coldStart: string[] = [];
let lazy: string[] = [];

beforeAll(async () => {
  const out = await build({
    ...esbuildOptionsOf(BUNDLING),
    absWorkingDir: PROJECT_ROOT,
    ...FUNCTION_OUTPUT_LAYOUT,
    entryPoints: ['functions/pages/login.ts'],
    write: false,
    outdir: 'out',
    metafile: true,
    logLevel: 'error',
  });
  metafile = out.metafile;
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((o) => outputs[o]!.entryPoint)!;
  const seen = new Set([entry]);
  const queue = [entry];
  for (let next = queue.pop(); next !== undefined; next = queue.pop())
    for (const i of outputs[next]!.imports)
      if (i.kind === 'import-statement' && !i.external && !seen.has(i.path)) {
        seen.add(i.path);
        queue.push(i.path);
      }
  coldStart = [...seen];
  lazy = Object.keys(outputs).filter((o) => o.endsWith('.mjs') && !seen.has(o));
}, 60_000);

const inputsOf = (outputs: string[]) => outputs.flatMap((o) => Object.keys(metafile.outputs[o]!.inputs));
const WEBAUTHN_LIBRARY = /node_modules\/(@simplewebauthn|@peculiar|@levischuck|@hexagon)\//;

describe('login function bundle', () => {
  it('carries the passkey ceremonies, but loads @simplewebauthn/server and its dependencies only through import()', () => {
    expect(inputsOf(coldStart)).toContain('shared/browser/passkeys/ceremony.ts');
    expect(inputsOf(coldStart).filter((i) => WEBAUTHN_LIBRARY.test(i))).toEqual([]);
    expect(inputsOf(lazy).some((i) => i.includes('node_modules/@simplewebauthn/server/'))).toBe(true);
  });
});
