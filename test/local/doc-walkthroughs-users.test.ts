import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.ts';
import { managementCaller } from '../support/service/management-api.ts';

/**
 * The walk-throughs of the users, sign-up, browser-flow and RBAC pages run as written (bash, curl,
 * node), in any order and twice on one service, and leave no record behind; the tenants page's the
 * same on a multi-tenant service of its own. The service is the
 * local stack with the Default Client the pages export; its email goes to an outbox folder the
 * sign-up walk-through reads through OUTBOX_DIR, as it would read `$DATA_DIR/outbox` of `npm start`.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** The shell blocks of a page, in order. */
const shellBlocks = (page: string) => [...readFileSync(resolve(ROOT, page), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

/** A walk-through: its start block exports the Default Client; the next block is the one to run. */
function walkthrough(page: string) {
  const blocks = shellBlocks(page);
  const start = blocks.findIndex((b) => b.includes('export DEFAULT_CLIENT_ID=') && b.includes('npm start'));
  expect(start, `${page} has a start block`).toBeGreaterThanOrEqual(0);
  const exported = (name: string) => new RegExp(`export ${name}=(\\S+)`).exec(blocks[start]!)![1]!;
  return { script: blocks[start + 1]!, clientId: exported('DEFAULT_CLIENT_ID'), secret: exported('DEFAULT_CLIENT_SECRET') };
}

const pages = {
  managementUsers: walkthrough('docs/management-users.md'),
  users: walkthrough('docs/users.md'),
  browser: walkthrough('docs/browser-flows.md'),
  rbac: walkthrough('docs/rbac.md'),
};
const { clientId, secret } = pages.managementUsers;

let stack: LocalStack;
let outbox: string;
beforeAll(async () => {
  for (const page of Object.values(pages)) expect([page.clientId, page.secret]).toEqual([clientId, secret]);
  outbox = mkdtempSync(join(tmpdir(), 'walkthrough-outbox-'));
  stack = await startLocalStack({
    port: 0,
    dataDir: null,
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tableName: `docs-users-${randomUUID()}`,
    stageThrottle: { rateLimit: 10_000, burstLimit: 10_000 },
    env: { OUTBOX_DIR: outbox },
    defaultClientId: clientId,
    defaultClientSecret: secret,
  });
});
afterAll(async () => {
  await stack?.stop();
  if (outbox) rmSync(outbox, { recursive: true, force: true });
});

async function bash(script: string) {
  const port = new URL(stack.url).port;
  const { stdout, stderr } = await run('bash', ['-c', script], {
    env: { ...process.env, PORT: port, DEFAULT_CLIENT_ID: clientId, DEFAULT_CLIENT_SECRET: secret, OUTBOX_DIR: outbox },
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
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', audience: `${stack.url}/identity/v1/` }),
    })
  ).json();
  const call = managementCaller(stack.url, (token as { access_token: string }).access_token);
  const count = async (path: string) => (await call('GET', `${path}?total_count=true&fields=id`)).body.total_count as number;
  return {
    clients: await count('/clients'),
    resources: await count('/resources'),
    users: await count('/users'),
    roles: await count('/roles'),
  };
}

async function runManagementUsers() {
  const { stdout, stderr } = await bash(pages.managementUsers.script);
  expect(stderr).toBe('');
  expect(statusLines(stdout)).toEqual([
    'read: 200',
    'unblock: 200',
    'set password: 204',
    'remove totp: 404',
    'delete: 204',
    'read deleted: 404',
  ]);
  expect(stdout).toContain('"has_password":false');
  expect(stdout).toContain('{"items":[]}\n');
  expect(stdout).toContain('path.authenticator_id: must be');
  expect(stdout).toContain('"total_count":1'); // found by email in another case
  expect(stdout).toContain('body.email: a user with this email already exists.');
  expect(stdout).toContain('{"blocked":true}');
  expect(stdout).toContain('body.password: is too common');
}

async function runUsers() {
  const { stdout, stderr } = await bash(pages.users.script);
  expect(stderr).toBe('');
  expect(statusLines(stdout)).toEqual(['verify: 200', 'wrong password: 400', 'refresh: 200', 'delete user: 204', 'delete client: 204']);
  expect(stdout).toMatch(/"email_verified":false}\n/); // as registered
  expect(stdout).toContain('\n{"email_verified":true}\n'); // after the link's POST
  expect(stdout).toContain('{"token_type":"Bearer","scope":"openid email offline_access","id_token":"string","refresh_token":"string"}');
  expect(stdout).toMatch(/\{"email":"grace-[^"]+@example\.com","email_verified":true}/); // /userinfo
}

async function runBrowser() {
  const { stdout, stderr } = await bash(pages.browser.script);
  expect(stderr).toBe('');
  expect(statusLines(stdout)).toEqual(['code again: 400', 'delete user: 204', 'delete client: 204']);
  expect(stdout).toContain('/login?interaction=...');
  expect(stdout).toMatch(/http:\/\/127\.0\.0\.1\/callback\?code=\.\.\.&state=s-[\d-]+&iss=/);
  expect(stdout).toContain('{"scope":"openid email offline_access","id_token":"string","refresh_token":"string"}');
  expect(stdout).toContain('{"error":"authorization_pending"}');
  expect(stdout).toContain('Device connected');
  expect(stdout).toContain('{"token_type":"Bearer","scope":"openid offline_access","refresh_token":"string"}');
  expect(stdout).toContain('{"error":"invalid_grant"}');
}

async function runRbac() {
  const { stdout, stderr } = await bash(pages.rbac.script);
  expect(stderr).toBe('');
  expect(statusLines(stdout)).toEqual([
    'role permission: 204',
    'role member: 204',
    'authorize: 204',
    'remove member: 204',
    'delete role: 204',
    'delete user: 204',
    'delete client: 204',
    'delete resource: 204',
  ]);
  expect(stdout).toContain('[{"scope":"read:reports","sources":["role"]}]');
  expect(stdout).toContain('{"scope":"read:reports","permissions":["read:reports"]}');
  expect(stdout).toContain('{"permissions":[]}');
}

describe('users, sign-up, browser-flow and RBAC walk-throughs against the local service', () => {
  it('each runs as the page says, in one order and then the reverse; nothing is left behind', async () => {
    const before = await totals();
    const order = [runManagementUsers, runUsers, runBrowser, runRbac];
    for (const walk of order) await walk();
    for (const walk of order.reverse()) await walk();
    expect(await totals()).toEqual(before);
  }, 480_000);
});

/** docs/tenants.md's walk-through needs a multi-tenant service: its own stack, the same Default Client. */
const tenantsPage = walkthrough('docs/tenants.md');
/** What the page says the walk-through prints (its first `text` block). */
const tenantsPrinted = /```text\n([\s\S]*?)```/.exec(readFileSync(resolve(ROOT, 'docs/tenants.md'), 'utf8'))![1]!;

describe('the tenants walk-through against a multi-tenant local service', () => {
  let multi: LocalStack;
  beforeAll(async () => {
    expect([tenantsPage.clientId, tenantsPage.secret]).toEqual([clientId, secret]);
    multi = await startLocalStack({
      port: 0,
      dataDir: null,
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      tableName: `docs-tenants-${randomUUID()}`,
      stageThrottle: { rateLimit: 10_000, burstLimit: 10_000 },
      env: { MULTI_TENANT: 'true' },
      defaultClientId: clientId,
      defaultClientSecret: secret,
    });
  });
  afterAll(async () => multi?.stop());

  it('prints what the page says, twice on one service; only the default tenant is left', async () => {
    const env = { ...process.env, PORT: new URL(multi.url).port, DEFAULT_CLIENT_ID: clientId, DEFAULT_CLIENT_SECRET: secret };
    for (let i = 0; i < 2; i++) {
      const { stdout, stderr } = await run('bash', ['-c', tenantsPage.script], { env, timeout: 120_000 });
      expect(stderr).toBe('');
      expect(stdout).toBe(tenantsPrinted);
    }
    const token = await (
      await fetch(`${multi.url}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', audience: `${multi.url}/identity/v1/` }),
      })
    ).json();
    const call = managementCaller(multi.url, (token as { access_token: string }).access_token);
    const tenants = await call('GET', '/tenants?total_count=true&fields=id');
    expect(tenants.status).toBe(200);
    expect(tenants.body).toMatchObject({ total_count: 1, items: [{ id: '00000000-0000-7000-8000-000000000001' }] });
  }, 240_000);
});
