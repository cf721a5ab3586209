import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.ts';
import { managementCaller } from '../support/service/management-api.ts';

/**
 * docs/client-authentication.md's walk-through runs as written (bash, curl, node and the scripts of
 * examples/client-auth/) against the local service, twice on one service: its shell blocks after the
 * start block in order in one shell, as a reader pastes them into one, printing what the page's text
 * blocks say, and leaving no client or Resource behind.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const PAGE = readFileSync(resolve(ROOT, 'docs/client-authentication.md'), 'utf8');
const section = PAGE.slice(PAGE.indexOf('\n## Walk-through\n'));
const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
const printed = [...section.matchAll(/```text\n([\s\S]*?)```/g)].map((m) => m[1]!).join('');
const exported = (name: string) => new RegExp(`export ${name}=(\\S+)`).exec(blocks[0]!)![1]!;
const clientId = exported('DEFAULT_CLIENT_ID');
const secret = exported('DEFAULT_CLIENT_SECRET');
const run = promisify(execFile);

let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({
    port: 0,
    dataDir: null,
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tableName: `docs-client-auth-${randomUUID()}`,
    stageThrottle: { rateLimit: 10_000, burstLimit: 10_000 },
    defaultClientId: clientId,
    defaultClientSecret: secret,
  });
}, 120_000);

afterAll(async () => {
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
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('the client authentication walk-through against the local service', () => {
  it('has a start block, then the blocks to run, each followed by what it prints', () => {
    expect(blocks[0]).toContain('npm start');
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    expect(section.match(/```text\n/g)?.length).toBe(blocks.length - 1);
  });

  it('prints what the page says, twice on one service; no client or Resource is left', async () => {
    const call = managementCaller(stack.url, await managementToken());
    const count = async (path: string) => {
      const res = await call('GET', `${path}?total_count=true&fields=id`);
      expect(res.status).toBe(200);
      return res.body.total_count as number;
    };
    const before = { clients: await count('/clients'), resources: await count('/resources') };

    const env = { ...process.env, PORT: new URL(stack.url).port, DEFAULT_CLIENT_ID: clientId, DEFAULT_CLIENT_SECRET: secret };
    for (let i = 0; i < 2; i++) {
      const { stdout, stderr } = await run('bash', ['-c', blocks.slice(1).join('\n')], { cwd: ROOT, env, timeout: 120_000 });
      expect(stderr).toBe('');
      expect(stdout).toBe(printed);
    }
    expect({ clients: await count('/clients'), resources: await count('/resources') }).toEqual(before);
  }, 240_000);
});
