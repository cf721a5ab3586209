/**
 * Run as a child by docs-bundle.test.ts: synthesizes the two docs functions with real esbuild
 * bundling and their `afterBundling` step (RouteApi's BUNDLED_FILES), as `npm run synth` does,
 * into the folder in argv[2].
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { BUNDLED_FILES } from '../../infra/constructs/api-docs-bundle.ts';
import { ServiceFunction } from '../../infra/constructs/service-function.ts';
import { quietBundlingNotices } from '../../infra/quiet-bundling-notices.ts';

quietBundlingNotices();
const app = new App({ outdir: process.argv[2] });
const stack = new Stack(app, 'DocsBundle', { env: { account: '123456789012', region: 'eu-west-1' } });
const role = new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
const logGroup = new logs.LogGroup(stack, 'Logs');
for (const [i, handlerModule] of Object.keys(BUNDLED_FILES).entries()) {
  new ServiceFunction(stack, `Docs${i}`, {
    handlerModule,
    role,
    environment: {},
    logGroup,
    timeout: Duration.seconds(3),
    afterBundling: BUNDLED_FILES[handlerModule]!,
  });
}
app.synth();
