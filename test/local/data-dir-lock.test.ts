import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../infra/local/data-dir-lock.ts';
import { startLocalStack } from '../../infra/local/local-stack.ts';

const dirs: string[] = [];
const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'lock-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A pid no process has: beyond Linux's pid_max (4,194,304). */
const GONE_PID = 99_999_999;

describe('one npm start per data folder (README "Configuration": DATA_DIR)', () => {
  it('a second lock on a folder whose owner is alive is refused, naming the owner and the way out', () => {
    const dir = newDir();
    const first = lockDataDir(dir);
    expect(readFileSync(join(dir, 'lock'), 'utf8')).toBe(String(process.pid));
    // Another process asks (a different pid); the owner (this process) is alive.
    expect(() => lockDataDir(dir, process.pid + 1)).toThrow(`in use by another \`npm start\` (pid ${process.pid})`);
    expect(() => lockDataDir(dir, process.pid + 1)).toThrow('another DATA_DIR');
    first.release();
    expect(() => readFileSync(join(dir, 'lock'))).toThrow(/ENOENT/);
  });

  it('a stale lock (its process is gone) is taken over', () => {
    const dir = newDir();
    writeFileSync(join(dir, 'lock'), String(GONE_PID));
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, 'lock'), 'utf8')).toBe(String(process.pid));
    lock.release();
  });

  it('release leaves a lock that another process has taken since', () => {
    const dir = newDir();
    const lock = lockDataDir(dir);
    writeFileSync(join(dir, 'lock'), String(GONE_PID));
    lock.release();
    expect(readFileSync(join(dir, 'lock'), 'utf8')).toBe(String(GONE_PID));
  });

  it('startLocalStack on a folder locked by a live process refuses before starting anything', async () => {
    const dir = newDir();
    // The lock of a live process that is not this one: the test runner's parent.
    writeFileSync(join(dir, 'lock'), String(process.ppid));
    await expect(
      startLocalStack({ port: 0, dataDir: dir, tableName: 'locked', stageThrottle: { rateLimit: 10, burstLimit: 10 } }),
    ).rejects.toThrow(`in use by another \`npm start\` (pid ${process.ppid})`);
    // DynamoDB Local was not started on the folder (it would have made its data folder).
    expect(existsSync(join(dir, 'dynamodb'))).toBe(false);
    expect(readFileSync(join(dir, 'lock'), 'utf8')).toBe(String(process.ppid));
  });
});
