import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.ts';
import { managementCaller } from '../support/service/management-api.ts';

/**
 * The shell walk-throughs of the docs and the README's curl run as written (bash,
 * curl, node), in any order and any number of times on one service, and leave nothing behind.
 * The service is the local stack with the Default Client the walk-throughs export.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** The shell blocks of a page, in order. */
const shellBlocks = (page: string) => [...readFileSync(resolve(ROOT, page), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

/** A walk-through: its start block exports the Default Client; the next block is the one to run. */
function walkthrough(page: string) {
  const blocks = shellBlocks(page);
  const start = blocks.findIndex((b) => b.includes('export DEFAULT_CLIENT_ID=') && b.includes('npm start'));
  const exported = (name: string) => new RegExp(`export ${name}=(\\S+)`).exec(blocks[start]!)![1]!;
  return { script: blocks[start + 1]!, clientId: exported('DEFAULT_CLIENT_ID'), secret: exported('DEFAULT_CLIENT_SECRET') };
}

const clients = walkthrough('docs/management-clients.md');
const resources = walkthrough('docs/management-resources.md');

let stack: LocalStack;
beforeAll(async () => {
  expect(resources.clientId).toBe(clients.clientId); // one service serves both, as the docs say
  expect(resources.secret).toBe(clients.secret);
  stack = await startLocalStack({
    port: 0,
    dataDir: null,
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tableName: `docs-${randomUUID()}`,
    stageThrottle: { rateLimit: 10_000, burstLimit: 10_000 },
    defaultClientId: clients.clientId,
    defaultClientSecret: clients.secret,
  });
});
afterAll(async () => stack?.stop());

async function bash(script: string, env: Record<string, string> = {}) {
  const port = new URL(stack.url).port;
  const { stdout, stderr } = await run('bash', ['-c', script], {
    env: { ...process.env, PORT: port, DEFAULT_CLIENT_ID: clients.clientId, DEFAULT_CLIENT_SECRET: clients.secret, ...env },
    timeout: 120_000,
  });
  return { stdout, stderr };
}

/** `name: 204` lines, as the walk-throughs print them with curl -w. */
const statusLines = (out: string) => out.split('\n').filter((l) => /^[a-z ]+: \d{3}$/.test(l));

async function totals() {
  const token = await (
    await fetch(`${stack.url}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clients.clientId}:${clients.secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', audience: `${stack.url}/identity/v1/` }),
    })
  ).json();
  const call = managementCaller(stack.url, (token as { access_token: string }).access_token);
  const count = async (path: string) => (await call('GET', `${path}?total_count=true&fields=id`)).body.total_count as number;
  return { clients: await count('/clients'), resources: await count('/resources') };
}

const CLIENTS_STATUSES = [
  'authorize: 204',
  'grant: 204',
  'old secret: 401',
  'new secret: 200',
  'revoke permission: 204',
  'revoke resource: 204',
  'delete: 204',
  'delete resource: 204',
];
const RESOURCES_STATUSES = ['authorize: 204', 'grant: 204', 'delete scope: 204', 'revoke: 204', 'delete: 204', 'delete client: 204'];

async function runClients() {
  const { stdout, stderr } = await bash(clients.script);
  expect(stderr).toBe('');
  expect(statusLines(stdout)).toEqual(CLIENTS_STATUSES);
  expect(stdout).toContain('"scope":"read:invoices"');
  expect(stdout).toContain('{"error":"invalid_scope"}');
  expect(stdout).toContain('"total_count":1');
  expect(stdout).toContain('The Default Client cannot be deleted.');
}

async function runResources() {
  const { stdout, stderr } = await bash(resources.script);
  expect(stderr).toBe('');
  expect(statusLines(stdout)).toEqual(RESOURCES_STATUSES);
  expect(stdout).toContain('already exists'); // the duplicate identifier_url: 409
  expect(stdout).toContain('{"aud":');
  expect(stdout).toContain('"lifetime":600');
  expect(stdout).toContain('signature OK');
  expect(stdout).toContain('{"alg":"RS256","typ":"at+jwt","kid":');
  expect(stdout).toContain('The system resource cannot be deleted.');
}

describe('docs walk-throughs against the local service', () => {
  it('clients then resources, then each again: every step answers as the page says; nothing is left behind', async () => {
    const before = await totals();
    await runClients();
    await runResources();
    await runResources();
    await runClients();
    expect(await totals()).toEqual(before);
  }, 240_000);

  it("the README's curl gets a token for the port in PORT and calls health with it", async () => {
    const block = shellBlocks('README.md').find((b) => b.includes('/company/v1/health'))!;
    const script = block.replace(/^CLIENT_ID=\.\.\..*$/m, '').replace(/^CLIENT_SECRET=\.\.\..*$/m, '');
    const { stdout, stderr } = await bash(script, { CLIENT_ID: clients.clientId, CLIENT_SECRET: clients.secret });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toMatchObject({ server_status: 'ok' });
  });

  it("the README's curl with a wrong secret says invalid_client, not undefined", async () => {
    const block = shellBlocks('README.md').find((b) => b.includes('/company/v1/health'))!;
    const script = block.replace(/^CLIENT_ID=\.\.\..*$/m, '').replace(/^CLIENT_SECRET=\.\.\..*$/m, '');
    const { stdout, stderr } = await bash(script, { CLIENT_ID: clients.clientId, CLIENT_SECRET: 'not-the-secret' });
    expect(stderr).toMatch(/^invalid_client: /);
    expect(stdout).not.toContain('undefined');
  });
});
