import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from './process-alive.ts';

export interface DataDirLock {
  /** Removes the lock file, if it is still ours. */
  release(): void;
}

/**
 * One `npm start` per data folder. Two on one folder would open the same DynamoDB Local files and
 * the first to stop would delete the other's `runtime.json`, so the second is refused with a message
 * that names the running one. The lock is a file created exclusively (`wx`), holding the owner's
 * pid; a lock whose process is gone (killed with SIGKILL, a crash) is stale and taken over.
 */
export function lockDataDir(dataDir: string, pid: number = process.pid): DataDirLock {
  const file = join(dataDir, 'lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(pid));
      closeSync(fd);
      return {
        release: () => {
          if (ownerOf(file) === pid) rmSync(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = ownerOf(file);
      if (owner !== undefined && owner !== pid && isAlive(owner)) {
        throw new Error(
          `the data folder ${dataDir} is in use by another \`npm start\` (pid ${owner}). ` +
            'Stop that one first, or start this one with another DATA_DIR (and PORT).',
        );
      }
      // Stale: its process is gone (or the file is unreadable); take it over once.
      rmSync(file, { force: true });
    }
  }
  throw new Error(`cannot lock the data folder ${dataDir}: another process keeps taking its lock file`);
}

function ownerOf(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
