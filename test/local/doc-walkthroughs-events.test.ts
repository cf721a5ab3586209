import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.ts';

/**
 * The walk-through of docs/events.md "Locally: events.jsonl" runs as written (bash, curl, node)
 * against npm start's stack: a data folder of its own and its events.jsonl, the Default Client the
 * page exports, DATA_DIR as the page exports it. Its output is the one the page shows, every time.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const page = readFileSync(resolve(ROOT, 'docs/events.md'), 'utf8');
const section = page.slice(page.indexOf('## Locally: events.jsonl'));
const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
const start = blocks.findIndex((b) => b.includes('export DEFAULT_CLIENT_ID=') && b.includes('npm start'));
const exported = (name: string) => new RegExp(`export ${name}=(\\S+)`).exec(blocks[start]!)![1]!;
const script = blocks[start + 1]!;
/** The block after "It prints:". */
const printed = /It prints:\n\n```\n([\s\S]*?)```/.exec(section)![1]!;

let dir: string;
let stack: LocalStack;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'events-walkthrough-'));
  stack = await startLocalStack({
    port: 0,
    dataDir: dir,
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tableName: `docs-events-${randomUUID()}`,
    stageThrottle: { rateLimit: 10_000, burstLimit: 10_000 },
    defaultClientId: exported('DEFAULT_CLIENT_ID'),
    defaultClientSecret: exported('DEFAULT_CLIENT_SECRET'),
    eventsFile: join(dir, 'events.jsonl'),
  });
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('the page starts npm start with a data folder of its own', () => {
  expect(start).toBeGreaterThanOrEqual(0);
  expect(exported('DATA_DIR')).toBe('.data-events');
});

it('prints what the page says, twice in a row on one service', async () => {
  for (let i = 0; i < 2; i++) {
    const { stdout } = await run('bash', ['-c', script], {
      env: {
        ...process.env,
        PORT: new URL(stack.url).port,
        DATA_DIR: dir,
        DEFAULT_CLIENT_ID: exported('DEFAULT_CLIENT_ID'),
        DEFAULT_CLIENT_SECRET: exported('DEFAULT_CLIENT_SECRET'),
      },
      timeout: 60_000,
    });
    expect(stdout).toBe(printed);
  }
  const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean);
  expect(lines.map((l) => JSON.parse(l).type)).toEqual([
    'management.created',
    'management.deleted',
    'management.created',
    'management.deleted',
  ]);
});
