import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The test tiers, by what a test file needs to run, read from its imports (followed through the
 * repository's own modules) so that no file has to be tagged by hand:
 * - `browser`: Chromium (it reaches test/support/service/chromium.ts), and DynamoDB Local behind the pages;
 * - `integration`: DynamoDB Local (it reaches test/support/service/dynamodb.ts or the local stack), so Java;
 * - `infra`: the CDK app's template assertions (test/infra/), no Java but seconds per synth;
 * - `unit`: none of these: pure modules, in-memory fakes, in seconds (`npm run test:unit`).
 */
export type Tier = 'unit' | 'infra' | 'integration' | 'browser';

const ROOT = resolve(import.meta.dirname, '..');
const NEEDS_BROWSER = new Set(['test/support/service/chromium.ts']);
const NEEDS_DATABASE = new Set(['test/support/service/dynamodb.ts', 'infra/local/dynamodb-local.ts']);
/** Imports of the repository's own modules: relative ones, and `#shared/` (package.json `imports`). */
const OWN_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+|#shared\/[^'"]+)['"]/g;

function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(OWN_IMPORT)]
    .map((m) => (m[1]!.startsWith('#shared/') ? resolve(ROOT, m[1]!.slice(1)) : resolve(dirname(file), m[1]!)))
    .filter(isFile);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The tier of one test file (a path relative to the repository). */
export function tierOf(testFile: string): Tier {
  const seen = new Set<string>();
  const pending = [resolve(ROOT, testFile)];
  let database = false;
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const path = relative(ROOT, file);
    if (NEEDS_BROWSER.has(path)) return 'browser';
    if (NEEDS_DATABASE.has(path)) database = true;
    pending.push(...importsOf(file));
  }
  if (database) return 'integration';
  return testFile.startsWith('test/infra/') ? 'infra' : 'unit';
}

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every test file of `test/`, grouped by tier. */
export function testTiers(): Record<Tier, string[]> {
  const tiers: Record<Tier, string[]> = { unit: [], infra: [], integration: [], browser: [] };
  for (const file of testFiles('test')) tiers[tierOf(file)].push(file);
  return tiers;
}
