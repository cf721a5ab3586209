/**
 * aws-cdk-lib writes "Bundling asset <path>..." to stderr for each of the ~30 functions
 * (AssetStaging.bundle) and has no setting to stop it; esbuild's own output is off already
 * (ServiceFunction). Only that exact line is dropped: errors and warnings still show. Called by
 * the CDK app (infra/app.ts) so that `npm run synth` prints only its result.
 */
export function quietBundlingNotices(): void {
  const write = process.stderr.write.bind(process.stderr) as (chunk: unknown, ...rest: unknown[]) => boolean;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) =>
    typeof chunk === 'string' && /^Bundling asset \S+\.\.\.\n$/.test(chunk) ? true : write(chunk, ...rest)) as typeof process.stderr.write;
}
