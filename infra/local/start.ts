import { startLocalStack } from './local-stack.ts';

/**
 * `npm start`: the whole service on http://localhost:3000. Settings (all optional):
 *   PORT (3000), DATA_DIR (.data), DYNAMODB_IN_MEMORY (false), DYNAMODB_ENDPOINT (spawn DynamoDB
 *   Local when unset), TABLE_NAME (identity-local), THROTTLE_RATE / THROTTLE_BURST (stage throttle,
 *   100/200), THROTTLE_ROUTES (false: the routes' own throttles are off), DEFAULT_CLIENT_ID / DEFAULT_CLIENT_SECRET, and the service settings of shared/config.ts
 *   (MULTI_TENANT, DOCS_URL, RECORD_CACHE_TTL_SECONDS, REVOCATION_CACHE_TTL_SECONDS).
 */
const env = process.env;
const port = Number(env.PORT ?? 3000);
const inMemory = env.DYNAMODB_IN_MEMORY === 'true';
const dataDir = env.DATA_DIR ?? '.data';

try {
  const stack = await startLocalStack({
    port,
    dataDir: inMemory ? null : dataDir,
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT,
    tableName: env.TABLE_NAME ?? 'identity-local',
    stageThrottle: { rateLimit: Number(env.THROTTLE_RATE ?? 100), burstLimit: Number(env.THROTTLE_BURST ?? 200) },
    routeThrottles: env.THROTTLE_ROUTES === 'false' ? 'stage-only' : 'routes',
    // Ids are UUIDs stored lower-case, as the management API addresses them.
    defaultClientId: env.DEFAULT_CLIENT_ID?.toLowerCase(),
    defaultClientSecret: env.DEFAULT_CLIENT_SECRET,
    env: {
      MULTI_TENANT: env.MULTI_TENANT,
      DOCS_URL: env.DOCS_URL,
      RECORD_CACHE_TTL_SECONDS: env.RECORD_CACHE_TTL_SECONDS,
      REVOCATION_CACHE_TTL_SECONDS: env.REVOCATION_CACHE_TTL_SECONDS,
    },
  });
  const out = process.stdout;
  out.write(`Identity service listening on ${stack.url}\n`);
  out.write(`  DynamoDB: ${stack.dynamodbEndpoint} (table ${stack.tableName}${inMemory ? ', in memory' : `, data in ${dataDir}`})\n`);
  out.write(`  Default Client id: ${stack.defaultClient.clientId}\n`);
  for (const notice of stack.notices) out.write(`  ${notice}\n`);
  if (stack.defaultClient.clientSecret) {
    out.write(`  Default Client secret: ${stack.defaultClient.clientSecret}\n  (shown once; set DEFAULT_CLIENT_ID / DEFAULT_CLIENT_SECRET to fix them)\n`);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    out.write(`\n${signal}: stopping\n`);
    stack.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
} catch (err) {
  process.stderr.write(`Cannot start: ${(err as Error).message}\n`);
  process.exit(1);
}
