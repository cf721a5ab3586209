import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FLAGS } from 'aws-cdk-lib/cx-api';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/constructs/service-function.ts';
import { cdkJson } from './support.ts';

/** `npm run synth` prints its result and nothing else. */
describe('npm run synth is quiet', () => {
  it('cdk.json sets every feature flag the CLI would list as "not configured"', () => {
    // The CLI's rule (aws-cdk `FlagOperations.filterNeedsAttention`): not obsolete, not set by the
    // user, and its unconfigured behaviour differs from the recommended value.
    const obsolete = [
      '@aws-cdk/core:enableStackNameDuplicates',
      '@aws-cdk/aws-s3:grantWriteWithoutAcl',
      '@aws-cdk/aws-kms:defaultKeyPolicies',
    ];
    const unconfigured = Object.entries(FLAGS)
      .filter(([name]) => !obsolete.includes(name) && !(name in cdkJson.context))
      .filter(([, flag]) => (flag.unconfiguredBehavesLike?.v2 ?? false) !== flag.recommendedValue)
      .map(([name]) => name);
    expect(unconfigured).toEqual([]);
  });

  const outdir = mkdtempSync(join(tmpdir(), 'quiet-synth-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('bundling a handler writes nothing to stderr (no "Bundling asset", no esbuild report, no npm warnings)', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'test/infra/bundle-one-function.ts', outdir],
      {
        cwd: PROJECT_ROOT,
        timeout: 110_000,
      },
    );
    expect(stderr).toBe('');
    expect(stdout).toBe('');
    // and it did bundle: one asset folder with the handler's ESM bundle
    const bundles = readdirSync(outdir).filter((d) => d.startsWith('asset.') && statSync(join(outdir, d)).isDirectory());
    expect(bundles).toHaveLength(1);
    expect(readdirSync(join(outdir, bundles[0]!))).toContain('index.mjs');
  }, 120_000);
});
