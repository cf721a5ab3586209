import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import { basicAuth } from '../support/service/local-service.ts';

/**
 * The Default Client as a newcomer meets it: `npm start` (infra/local/start.ts, run as npm runs it)
 * on one data folder, started again with other DEFAULT_CLIENT_* settings. The run's DynamoDB Local
 * stands in for the one npm start would spawn (DYNAMODB_ENDPOINT, one table for this file).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const dataDirs: string[] = [];
/** Every server still running: a failed assertion must not leave one behind. */
const running = new Set<() => Promise<void>>();
afterEach(async () => {
  await Promise.all([...running].map((stop) => stop()));
});
afterAll(() => {
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
});

/** A data folder and its table, as `npm start` keeps them. */
function dataFolder() {
  const dataDir = mkdtempSync(join(tmpdir(), 'start-default-client-'));
  dataDirs.push(dataDir);
  return { DATA_DIR: dataDir, TABLE_NAME: `start-${randomUUID()}` };
}

interface Started {
  url: string;
  stdout: string;
  stop(): Promise<void>;
}

/** Runs `npm start`'s script with these settings until it listens (or exits: then rejects with its output). */
function start(folder: { DATA_DIR: string; TABLE_NAME: string }, settings: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'), ...folder, ...settings },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const stop = async () => {
    running.delete(stop);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    await exited;
  };
  running.add(stop);
  void exited.then(() => running.delete(stop));
  return new Promise((res, rej) => {
    const poll = setInterval(() => {
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url && stdout.includes('Default Client id:')) {
        clearInterval(poll);
        res({
          url,
          get stdout() {
            return stdout;
          },
          stop,
        });
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(poll);
      rej(Object.assign(new Error(`exited ${code}`), { code, stdout, stderr }));
    });
  });
}

const tokenStatus = async (url: string, id: string, secret: string) =>
  (
    await fetch(`${url}/token`, {
      method: 'POST',
      headers: { authorization: basicAuth(id, secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', audience: `${url}/identity/v1/` }),
    })
  ).status;

describe('npm start with DEFAULT_CLIENT_* on an existing data folder', () => {
  it('a new DEFAULT_CLIENT_SECRET replaces the stored one and says so; the same one again says nothing', async () => {
    const folder = dataFolder();
    const id = uuidv7();
    const first = `first-secret-${randomUUID()}`;
    const second = `second-secret-${randomUUID()}`;
    const a = await start(folder, { DEFAULT_CLIENT_ID: id, DEFAULT_CLIENT_SECRET: first });
    expect(await tokenStatus(a.url, id, first)).toBe(200);
    expect(a.stdout).not.toContain('replaced');
    await a.stop();

    const b = await start(folder, { DEFAULT_CLIENT_ID: id, DEFAULT_CLIENT_SECRET: second });
    expect(await tokenStatus(b.url, id, second)).toBe(200);
    expect(await tokenStatus(b.url, id, first)).toBe(401);
    expect(b.stdout).toContain('  Default Client secret: replaced by DEFAULT_CLIENT_SECRET; the secret stored before no longer works.\n');
    expect(b.stdout).not.toContain(second); // the secret itself is never printed
    await b.stop();

    const c = await start(folder, { DEFAULT_CLIENT_SECRET: second });
    expect(await tokenStatus(c.url, id, second)).toBe(200);
    expect(c.stdout).toContain(`Default Client id: ${id}`);
    expect(c.stdout).not.toContain('replaced');
    await c.stop();
  }, 60_000);

  it('another DEFAULT_CLIENT_ID refuses to start and says how to keep the data or start fresh', async () => {
    const folder = dataFolder();
    const id = uuidv7();
    await (await start(folder, { DEFAULT_CLIENT_ID: id })).stop();
    const other = uuidv7();
    const failure = (await start(folder, { DEFAULT_CLIENT_ID: other }).then(
      async (s) => {
        await s.stop();
        throw new Error('started');
      },
      (err: unknown) => err,
    )) as { code: number; stderr: string };
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain(`Default Client is ${id}, but DEFAULT_CLIENT_ID is ${other}.`);
    expect(failure.stderr).toContain(`set DEFAULT_CLIENT_ID=${id}, or unset it`);
    expect(failure.stderr).toMatch(/DATA_DIR=\S+ npm start/);
    expect(failure.stderr).toContain('rm -rf .data');
  }, 60_000);
});
