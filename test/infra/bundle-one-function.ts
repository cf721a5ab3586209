/**
 * Run as a child by synth-quiet.test.ts: synthesizes one ServiceFunction with real esbuild
 * bundling, as `npm run synth` does for every handler (infra/app.ts), into the folder in argv[2].
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { ServiceFunction } from '../../infra/constructs/service-function.ts';
import { quietBundlingNotices } from '../../infra/quiet-bundling-notices.ts';
import { FUNCTION_TIMEOUTS } from '../../shared/routes/function-groups.ts';

quietBundlingNotices();
const app = new App({ outdir: process.argv[2] });
const stack = new Stack(app, 'QuietSynth', { env: { account: '123456789012', region: 'eu-west-1' } });
new ServiceFunction(stack, 'Health', {
  handlerModule: 'functions/health/get-health',
  role: new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') }),
  environment: {},
  logGroup: new logs.LogGroup(stack, 'Logs'),
  timeout: Duration.seconds(FUNCTION_TIMEOUTS.health),
});
app.synth();
