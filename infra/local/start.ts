import { join } from 'node:path';
import { type LocalStack, startLocalStack } from './local-stack.ts';
import { isAlive } from './process-alive.ts';

/**
 * `npm start`: the whole service on http://localhost:3000. Settings (all optional):
 *   PORT (3000), DATA_DIR (.data), DYNAMODB_IN_MEMORY (false), DYNAMODB_ENDPOINT (spawn DynamoDB
 *   Local when unset), TABLE_NAME (identity-local), THROTTLE_RATE / THROTTLE_BURST (stage throttle,
 *   100/200), THROTTLE_ROUTES (false: the routes' own throttles are off), DEFAULT_CLIENT_ID / DEFAULT_CLIENT_SECRET, and the service settings of shared/config.ts
 *   (MULTI_TENANT, DOCS_URL, OUTBOX_DIR (default <DATA_DIR>/outbox), RECORD_CACHE_TTL_SECONDS, REVOCATION_CACHE_TTL_SECONDS, the lockout
 *   settings LOGIN_LOCKOUT_FAILURES / LOGIN_LOCKOUT_SECONDS / OTP_MAX_FAILURES, the passkey policy PASSKEYS, the per-user caps
 *   USER_MAX_REFRESH_FAMILIES / USER_MAX_SESSIONS, the events' EVENTS_RETENTION_DAYS, and the
 *   dependency budgets DYNAMODB_* / KMS_* _CONNECT_TIMEOUT_MS, _ATTEMPT_TIMEOUT_MS, _MAX_ATTEMPTS).
 *
 * Lifecycle: SIGINT or SIGTERM stops the server and DynamoDB Local. `npm start` execs this process
 * (package.json), so npm forwards both signals here instead of to a shell that would leave it
 * running; if npm is killed outright, this process notices its parent is gone and stops too. If
 * DynamoDB Local exits on its own, the service says so and stops rather than answer every request
 * with an error.
 */
const env = process.env;
const port = Number(env.PORT ?? 3000);
const inMemory = env.DYNAMODB_IN_MEMORY === 'true';
const dataDir = env.DATA_DIR ?? '.data';
const out = process.stdout;
const SERVICE_SETTINGS =
  /^(MULTI_TENANT|DOCS_URL|OUTBOX_DIR|RECORD_CACHE_TTL_SECONDS|REVOCATION_CACHE_TTL_SECONDS|LOGIN_LOCKOUT_FAILURES|LOGIN_LOCKOUT_SECONDS|OTP_MAX_FAILURES|PASSKEYS|USER_MAX_REFRESH_FAMILIES|USER_MAX_SESSIONS|EVENTS_RETENTION_DAYS|(DYNAMODB|KMS)_(CONNECT_TIMEOUT_MS|ATTEMPT_TIMEOUT_MS|MAX_ATTEMPTS))$/;

let stack: LocalStack | undefined;
let stopping: { reason: string; code: number } | undefined;

/** Stops everything once; a signal that arrives while starting stops it as soon as the start ends. */
function stop(reason: string, code: number): void {
  if (stopping) return;
  stopping = { reason, code };
  out.write(`\n${reason}: stopping\n`);
  if (stack) shutDown(stack, code);
}

function shutDown(s: LocalStack, code: number): void {
  s.stop().then(
    () => process.exit(code),
    () => process.exit(1),
  );
}

process.on('SIGINT', () => stop('SIGINT', 0));
process.on('SIGTERM', () => stop('SIGTERM', 0));
const parent = process.ppid;
setInterval(() => {
  if (!isAlive(parent)) stop('parent process gone', 0);
}, 1000).unref();

try {
  stack = await startLocalStack({
    port,
    dataDir: inMemory ? null : dataDir,
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT,
    tableName: env.TABLE_NAME ?? 'identity-local',
    stageThrottle: { rateLimit: Number(env.THROTTLE_RATE ?? 100), burstLimit: Number(env.THROTTLE_BURST ?? 200) },
    routeThrottles: env.THROTTLE_ROUTES === 'false' ? 'stage-only' : 'routes',
    // Ids are UUIDs stored lower-case, as the management API addresses them.
    defaultClientId: env.DEFAULT_CLIENT_ID?.toLowerCase(),
    defaultClientSecret: env.DEFAULT_CLIENT_SECRET,
    env: Object.fromEntries(Object.entries(env).filter(([name]) => SERVICE_SETTINGS.test(name))),
    // Every security event as one JSON line (docs/events.md "Locally: events.jsonl"); in memory, none.
    eventsFile: inMemory ? undefined : join(dataDir, 'events.jsonl'),
  });
  if (stopping) shutDown(stack, stopping.code);
  else {
    out.write(`Identity service listening on ${stack.url}\n`);
    out.write(`  DynamoDB: ${stack.dynamodbEndpoint} (table ${stack.tableName}${inMemory ? ', in memory' : `, data in ${dataDir}`})\n`);
    out.write(`  Default Client id: ${stack.defaultClient.clientId}\n`);
    if (stack.eventsFile) out.write(`  Security events: ${stack.eventsFile}\n`);
    for (const notice of stack.notices) out.write(`  ${notice}\n`);
    if (stack.defaultClient.clientSecret) {
      out.write(
        `  Default Client secret: ${stack.defaultClient.clientSecret}\n  (shown once; set DEFAULT_CLIENT_ID / DEFAULT_CLIENT_SECRET to fix them)\n`,
      );
    }
  }
  // A dead database would turn every request into an error: say so and stop instead.
  void stack.dynamodbLocal?.exited.then((how) => {
    if (stopping) return;
    process.stderr.write(`DynamoDB Local exited unexpectedly (${how}); the service cannot answer without it. Run \`npm start\` again.\n`);
    stop('DynamoDB Local gone', 1);
  });
} catch (err) {
  process.stderr.write(`Cannot start: ${(err as Error).message}\n`);
  process.exit(1);
}
