/**
 * Our service as `npm start` runs it (infra/local/local-stack.ts: DynamoDB Local, the table, the
 * bootstrap records, the local API Gateway stand-in running the real handler modules), in its own
 * process so the bench can pin it and DynamoDB Local (its child) to one core. Announces one JSON line (announce.ts)
 * `{ready, url, dynamodbEndpoint, tableName, masterKeyFile, clientId, clientSecret, liftedThrottles}`.
 *
 * argv[2]: JSON `{clientId, clientSecret, tableName, keepRouteThrottles?}`.
 */
import { startLocalStack } from '../../infra/local/local-stack.ts';
import { routeThrottlesOf, UNTHROTTLED } from '../lib/throttles.ts';
import { announceReady, answerMemoryRequests } from './announce.ts';

const opts = JSON.parse(process.argv[2] ?? '{}') as {
  clientId: string;
  clientSecret: string;
  tableName: string;
  keepRouteThrottles?: boolean;
  /** Service settings (env names of shared/config.ts) for a probe's variant. */
  env?: Record<string, string>;
};
const liftedThrottles = opts.keepRouteThrottles ? [] : routeThrottlesOf();

const stack = await startLocalStack({
  port: 0,
  dataDir: null,
  tableName: opts.tableName,
  stageThrottle: UNTHROTTLED,
  routeThrottles: opts.keepRouteThrottles ? 'routes' : 'stage-only',
  defaultClientId: opts.clientId,
  defaultClientSecret: opts.clientSecret,
  env: opts.env ?? {},
});

announceReady(
  `${JSON.stringify({
    ready: true,
    url: stack.url,
    dynamodbEndpoint: stack.dynamodbEndpoint,
    tableName: stack.tableName,
    masterKeyFile: stack.runtime.config.localMasterKeyFile,
    clientId: stack.defaultClient.clientId,
    clientSecret: opts.clientSecret,
    managementAudience: stack.runtime.config.managementAudience,
    liftedThrottles,
  })}\n`,
);

answerMemoryRequests();

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  stack.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
