/**
 * Run as a child by synth-quiet.test.ts and function-bundle.test.ts: synthesizes one
 * ServiceFunction with real esbuild bundling, as `npm run synth` does for every handler
 * (infra/app.ts), into the folder in argv[2]: the handler module in argv[3] (default the health
 * check) with the tracer in argv[4] (default the construct's).
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { FUNCTION_TIMEOUTS } from '#shared/routes/function-groups.ts';
import { ServiceFunction } from '../../infra/constructs/service-function.ts';
import { quietBundlingNotices } from '../../infra/quiet-bundling-notices.ts';

quietBundlingNotices();
const [outdir, handlerModule = 'functions/health/get-health', tracer] = process.argv.slice(2);
const app = new App({ outdir });
const stack = new Stack(app, 'QuietSynth', { env: { account: '123456789012', region: 'eu-west-1' } });
new ServiceFunction(stack, 'Function', {
  handlerModule,
  role: new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') }),
  environment: {},
  logGroup: new logs.LogGroup(stack, 'Logs'),
  timeout: Duration.seconds(FUNCTION_TIMEOUTS.health),
  ...(tracer === 'sdk' || tracer === 'platform' ? { tracer } : {}),
});
app.synth();
