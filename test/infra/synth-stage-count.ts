/**
 * Profiles `cdk synth` by stage count: run as `node --import tsx test/infra/synth-stage-count.ts
 * <stages> <outdir>`, it builds the app of infra/app.ts with <stages> stages (copies of cdk.json's
 * dev and prod, in turn) and prints to stderr, as JSON, where the time went: the construct tree
 * (bundling included, as CDK bundles while a function is constructed), how many esbuild runs and
 * their time, cdk-nag and synthesis (docs/benchmarks.md "Synth time by stage count").
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { performance } from 'node:perf_hooks';
import { App } from 'aws-cdk-lib';
import { IdentityServiceStack } from '../../infra/constructs/identity-service-stack.ts';
import { addNagChecks } from '../../infra/nag-suppressions.ts';
import { quietBundlingNotices } from '../../infra/quiet-bundling-notices.ts';
import { parseStageConfig, stageEnv } from '../../infra/stages.ts';
import { cdkJson } from './support.ts';

const [count = '1', outdir = 'cdk.out'] = process.argv.slice(2);
// Every child process of the synth (esbuild runs, the docs functions' file writers), timed.
const childProcess = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
const execFileSync = childProcess.execFileSync;
const children = { runs: 0, ms: 0 };
childProcess.execFileSync = ((...args: Parameters<typeof execFileSync>) => {
  const started = performance.now();
  try {
    return execFileSync(...args);
  } finally {
    children.runs += 1;
    children.ms += performance.now() - started;
  }
}) as typeof execFileSync;
syncBuiltinESMExports();

quietBundlingNotices();
const t0 = performance.now();
const app = new App({ outdir, context: cdkJson.context });
const templates = Object.values(cdkJson.context.stages);
for (let i = 0; i < Number(count); i++) {
  const stage = parseStageConfig(`s${i + 1}`, templates[i % templates.length]);
  new IdentityServiceStack(app, `IdentityService-${stage.name}`, { stage, env: stageEnv(stage) });
}
const t1 = performance.now();
addNagChecks(app);
app.synth();
const t2 = performance.now();
const seconds = (ms: number) => Math.round(ms / 100) / 10;
process.stderr.write(
  `${JSON.stringify({
    stages: Number(count),
    constructSeconds: seconds(t1 - t0),
    childProcesses: children.runs,
    childSeconds: seconds(children.ms),
    nagAndSynthSeconds: seconds(t2 - t1),
    totalSeconds: seconds(t2 - t0),
  })}\n`,
);
