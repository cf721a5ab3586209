import { App } from 'aws-cdk-lib';
import { IdentityServiceStack } from './constructs/identity-service-stack.ts';
import { addNagChecks } from './nag-suppressions.ts';
import { quietBundlingNotices } from './quiet-bundling-notices.ts';
import { selectStages, stageEnv } from './stages.ts';

/**
 * The CDK app: one `IdentityService-<stage>` stack per stage in cdk.json's `context.stages`, or
 * only the one named by `-c stage=<name>`. docs/deploy.md explains the settings.
 */
quietBundlingNotices();
const app = new App();
for (const stage of selectStages(app)) {
  new IdentityServiceStack(app, `IdentityService-${stage.name}`, { stage, env: stageEnv(stage) });
}
// cdk-nag's AwsSolutions pack: a finding not acknowledged in infra/nag-suppressions.ts fails synth.
addNagChecks(app);
app.synth();
