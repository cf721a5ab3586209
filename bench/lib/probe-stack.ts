import { randomBytes, randomUUID } from 'node:crypto';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.ts';
import { prepareUserFixture, type UserFixture } from '../sections/user-flows.ts';
import { UNTHROTTLED } from './throttles.ts';

/**
 * The local stack of `npm start` in a probe's own process (DynamoDB Local in memory, its own
 * table, throttles lifted as in the bench), with a Default Client of fresh credentials, and a way
 * to make section 9's user fixture (a password client and a user) through its management API.
 */
export async function startProbeStack(name: string): Promise<{ stack: LocalStack; userFixture: (tag: string) => Promise<UserFixture> }> {
  const admin = { clientId: randomUUID(), clientSecret: randomBytes(32).toString('base64url') };
  const stack = await startLocalStack({
    port: 0,
    dataDir: null,
    tableName: `${name}-${randomUUID()}`,
    stageThrottle: UNTHROTTLED,
    routeThrottles: 'stage-only',
    defaultClientId: admin.clientId,
    defaultClientSecret: admin.clientSecret,
    env: {},
  });
  const managementAudience = stack.runtime.config.managementAudience;
  return {
    stack,
    userFixture: (tag) => prepareUserFixture({ name: 'ours', url: stack.url, procs: {}, admin: { ...admin, managementAudience } }, tag),
  };
}
