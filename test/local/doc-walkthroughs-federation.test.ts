import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.ts';
import { managementCaller } from '../support/service/management-api.ts';

/**
 * docs/federation.md's walk-through runs as written (bash, curl, node) against the local service
 * and `npm run example-provider` (started here as its npm script runs it), twice on one service,
 * and prints what the page says; nothing it made is left behind.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const PAGE = readFileSync(resolve(ROOT, 'docs/federation.md'), 'utf8');
const section = PAGE.slice(PAGE.indexOf('## Walk-through'));
const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
const printed = /```text\n([\s\S]*?)```/.exec(section)![1]!;
const exported = (name: string) => new RegExp(`export ${name}=(\\S+)`).exec(blocks[0]!)![1]!;
const clientId = exported('DEFAULT_CLIENT_ID');
const secret = exported('DEFAULT_CLIENT_SECRET');
const run = promisify(execFile);

/** A port nobody listens on now (the example provider's issuer names its port, so it cannot take 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as { port: number };
  await new Promise<void>((res) => server.close(() => res()));
  return port;
}

let stack: LocalStack;
let provider: ChildProcess;
let providerPort: number;

beforeAll(async () => {
  stack = await startLocalStack({
    port: 0,
    dataDir: null,
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tableName: `docs-federation-${randomUUID()}`,
    stageThrottle: { rateLimit: 10_000, burstLimit: 10_000 },
    defaultClientId: clientId,
    defaultClientSecret: secret,
  });
  providerPort = await freePort();
  provider = spawn(process.execPath, ['--import', 'tsx', 'infra/local/example-provider.ts'], {
    cwd: ROOT,
    env: { ...process.env, EXAMPLE_PROVIDER_PORT: String(providerPort), BASE_URL: stack.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((res, rej) => {
    let out = '';
    provider.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Example OpenID provider at')) res();
    });
    provider.on('exit', (code) => rej(new Error(`example provider exited with ${code}`)));
  });
}, 120_000);

afterAll(async () => {
  provider?.kill();
  await stack?.stop();
});

async function managementToken(): Promise<string> {
  const res = await fetch(`${stack.url}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', audience: `${stack.url}/identity/v1/` }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('the federation walk-through against the local service and the example provider', () => {
  it('prints what the page says, twice on one service; no user, client or provider is left', async () => {
    expect(blocks[0]).toContain('npm run example-provider');
    const call = managementCaller(stack.url, await managementToken());
    const count = async (path: string) => (await call('GET', `${path}?total_count=true&fields=id`)).body.total_count as number;
    const providers = '/tenants/00000000-0000-7000-8000-000000000001/identity-providers';
    const before = { users: await count('/users'), clients: await count('/clients'), providers: await count(providers) };

    const env = {
      ...process.env,
      PORT: new URL(stack.url).port,
      EXAMPLE_PROVIDER_PORT: String(providerPort),
      DEFAULT_CLIENT_ID: clientId,
      DEFAULT_CLIENT_SECRET: secret,
    };
    for (let i = 0; i < 2; i++) {
      const { stdout, stderr } = await run('bash', ['-c', blocks[1]!], { env, timeout: 120_000 });
      expect(stderr).toBe('');
      expect(stdout).toBe(printed);
    }
    expect({ users: await count('/users'), clients: await count('/clients'), providers: await count(providers) }).toEqual(before);
  }, 240_000);
});
