import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { runWithRuntime } from '#shared/runtime.ts';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';
import { startLocalStack } from '../../infra/local/local-stack.ts';
import { basicAuth, FORM, lambdaContext, proxyEvent } from '../lib/api-event.ts';
import { prepareOurClient } from '../lib/fixture.ts';
import { logsToDevNull } from '../lib/logs-to-dev-null.ts';
import { type CpuProfile, functionTable } from '../lib/profile-summary.ts';
import { UNTHROTTLED } from '../lib/throttles.ts';
import { prepareUserFixture } from '../sections/user-flows.ts';

const [what = 'token', secondsArg = '4', poolArg = '11000'] = process.argv.slice(2);
const report = logsToDevNull();

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;
const ddb = await startDynamoDbLocal({ dataDir: null });
const stack = await startLocalStack({
  port: 0,
  dataDir: null,
  dynamodbEndpoint: ddb.endpoint,
  tableName: 'profile',
  stageThrottle: UNTHROTTLED,
  defaultClientId: '0190a0a0-bbbb-7000-8000-00000000ab0c',
  defaultClientSecret: 'bench-profile-default-client-secret-0123456789abcdefgh',
});
try {
  const runtime = stack.runtime;
  const f = await prepareOurClient(stack.url, {
    clientId: '0190a0a0-bbbb-7000-8000-00000000ab0c',
    clientSecret: 'bench-profile-default-client-secret-0123456789abcdefgh',
    managementAudience: runtime.config.managementAudience,
  });
  const auth = basicAuth(f.clientId, f.clientSecret);
  const { handler: token } = (await import('../../functions/oauth/token.ts')) as { handler: Handler };
  const { handler: introspect } = (await import('../../functions/oauth/introspect.ts')) as { handler: Handler };
  const body = new URLSearchParams({ grant_type: 'client_credentials', resource: f.resource, scope: f.scope }).toString();
  const issue = async () => {
    const event = proxyEvent({ method: 'POST', resource: '/token', headers: { Authorization: auth, 'Content-Type': FORM }, body });
    const r = await runWithRuntime(runtime, () => token(event, lambdaContext('functions/oauth/token', 1024)));
    if (r.statusCode !== 200) throw new Error(`/token ${r.statusCode} ${r.body}`);
    return r;
  };
  let call = issue as () => Promise<unknown>;
  if (what === 'introspect') {
    const bodies: string[] = [];
    for (let i = 0; i < Number(poolArg); i++)
      bodies.push(new URLSearchParams({ token: (JSON.parse((await issue()).body!) as { access_token: string }).access_token }).toString());
    let next = 0;
    call = async () => {
      const event = proxyEvent({
        method: 'POST',
        resource: '/introspect',
        headers: { Authorization: auth, 'Content-Type': FORM },
        body: bodies[next++ % bodies.length]!,
      });
      const r = await runWithRuntime(runtime, () => introspect(event, lambdaContext('functions/oauth/introspect', 512)));
      if (r.statusCode !== 200) throw new Error(`/introspect ${r.statusCode} ${r.body}`);
    };
    for (let i = 0; i < bodies.length; i++) await call();
  }
  if (what === 'refresh') {
    const u = await prepareUserFixture(
      {
        name: 'ours',
        url: stack.url,
        procs: {},
        admin: {
          clientId: '0190a0a0-bbbb-7000-8000-00000000ab0c',
          clientSecret: 'bench-profile-default-client-secret-0123456789abcdefgh',
          managementAudience: runtime.config.managementAudience,
        },
      },
      'profile',
    );
    const userAuth = basicAuth(u.clientId, u.clientSecret);
    const tokenCall = async (params: Record<string, string>) => {
      const event = proxyEvent({
        method: 'POST',
        resource: '/token',
        headers: { Authorization: userAuth, 'Content-Type': FORM },
        body: new URLSearchParams(params).toString(),
      });
      const r = await runWithRuntime(runtime, () => token(event, lambdaContext('functions/oauth/token', 1024)));
      if (r.statusCode !== 200) throw new Error(`/token ${r.statusCode} ${r.body}`);
      return JSON.parse(r.body!) as { refresh_token: string };
    };
    let rt = (await tokenCall({ grant_type: 'password', username: u.username, password: u.password, scope: 'openid offline_access' }))
      .refresh_token;
    call = async () => {
      rt = (await tokenCall({ grant_type: 'refresh_token', refresh_token: rt })).refresh_token;
    };
  }
  const warmEnd = performance.now() + 1000;
  while (performance.now() < warmEnd) await call();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 50 });
  await session.post('Profiler.start');
  let n = 0;
  const c0 = process.cpuUsage();
  const end = performance.now() + Number(secondsArg) * 1000;
  while (performance.now() < end) {
    await call();
    n++;
  }
  const cpu = process.cpuUsage(c0);
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
  session.disconnect();
  const usPerCall = (cpu.user + cpu.system) / n;
  report(`${what}: ${n} calls, ${usPerCall.toFixed(1)} µs CPU per call (profiled)\n`);
  report(`\n${functionTable(profile, usPerCall, resolve(import.meta.dirname, '../..'))}`);
} finally {
  await stack.stop();
  await ddb.stop();
}
process.exit(0);
