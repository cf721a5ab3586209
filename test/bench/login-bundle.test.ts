/**
 * The page functions' bundles (docs/benchmarks.md "Login function with passkeys"): @simplewebauthn/server
 * and its dependencies are a chunk only an `import()` reaches, loaded on the first passkey step
 * that verifies or registers, so showing the login page and a password sign-in never parse them.
 * Built as the CDK app builds them (the construct's `BUNDLING` and `FUNCTION_OUTPUT_LAYOUT`).
 */
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { FUNCTION_OUTPUT_LAYOUT } from '../../infra/bundling/bundle-function.ts';
import { esbuildOptionsOf } from '../../infra/bundling/esbuild-options.ts';
import { BUNDLING, PROJECT_ROOT } from '../../infra/constructs/service-function.ts';

/** The inputs of what a cold start loads (the entry and its static chunks), and of the chunks only import() reaches. */
async function bundleOf(entry: string): Promise<{ coldStart: string[]; lazy: string[] }> {
  const out = await build({
    ...esbuildOptionsOf(BUNDLING),
    absWorkingDir: PROJECT_ROOT,
    ...FUNCTION_OUTPUT_LAYOUT,
    entryPoints: [entry],
    write: false,
    outdir: 'out',
    metafile: true,
    logLevel: 'error',
  });
  const outputs: Metafile['outputs'] = out.metafile.outputs;
  const first = Object.keys(outputs).find((o) => outputs[o]!.entryPoint)!;
  const seen = new Set([first]);
  const queue = [first];
  for (let next = queue.pop(); next !== undefined; next = queue.pop())
    for (const i of outputs[next]!.imports)
      if (i.kind === 'import-statement' && !i.external && !seen.has(i.path)) {
        seen.add(i.path);
        queue.push(i.path);
      }
  const inputsOf = (os: string[]) => os.flatMap((o) => Object.keys(outputs[o]!.inputs));
  return {
    coldStart: inputsOf([...seen]),
    lazy: inputsOf(Object.keys(outputs).filter((o) => o.endsWith('.mjs') && !seen.has(o))),
  };
}

const WEBAUTHN_LIBRARY = /node_modules\/(@simplewebauthn|@peculiar|@levischuck|@hexagon)\//;

describe('page function bundles and the WebAuthn library', () => {
  for (const entry of ['functions/pages/login.ts', 'functions/pages/account.ts']) {
    it(`${entry}: the ceremonies reach @simplewebauthn/server and its dependencies only through import()`, async () => {
      const { coldStart, lazy } = await bundleOf(entry);
      expect(coldStart.filter((i) => WEBAUTHN_LIBRARY.test(i))).toEqual([]);
      // Wherever the ceremonies are bundled, the library is there, in a lazy chunk.
      if (coldStart.includes('shared/browser/passkeys/ceremony.ts'))
        expect(lazy.some((i) => i.includes('node_modules/@simplewebauthn/server/'))).toBe(true);
    }, 60_000);
  }

  it('the account function bundles the ceremonies (registration), so the rule above is exercised', async () => {
    expect((await bundleOf('functions/pages/account.ts')).coldStart).toContain('shared/browser/passkeys/ceremony.ts');
  }, 60_000);
});
