import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Source trees of this repository's commits for a side-by-side run (bench/ab.ts,
 * bench/bundle-ab.ts): each commit is exported with `git archive` to a temporary directory that
 * uses `root`'s node_modules; `remove()` deletes them all.
 */
export function treeExports(root: string, prefix: string) {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  const temp = mkdtempSync(join(tmpdir(), prefix));
  return {
    git,
    temp,
    exportTree(commit: string): string {
      const dir = join(temp, git('rev-parse', '--short', commit));
      execFileSync('sh', ['-c', `mkdir -p ${dir} && git archive ${commit} | tar -x -C ${dir}`], { cwd: root });
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
      return dir;
    },
    remove: () => rmSync(temp, { recursive: true, force: true }),
  };
}
