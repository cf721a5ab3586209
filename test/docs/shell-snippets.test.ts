import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The walk-throughs pass generated values (PKCE verifiers, secrets, tokens) to `node -e '…' ARG`.
 * A base64url value starts with "-" one time in 32, and node then reads it as one of its own
 * options ("node: bad option"), so every such call ends node's options with `--` first.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const pages = [
  'README.md',
  ...readdirSync(resolve(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** `node -e '<script>'` followed by an argument on the same line (not a pipe, `)` or line end). */
const NODE_EVAL_WITH_ARGUMENT = /node -e '[^']*'[ \t]+(?![|)\n\\])(\S+)/g;

describe('shell snippets in the docs', () => {
  it('finds the snippets it checks', () => {
    const all = pages.flatMap((page) => [...readFileSync(resolve(ROOT, page), 'utf8').matchAll(NODE_EVAL_WITH_ARGUMENT)]);
    expect(all.length).toBeGreaterThan(10);
  });

  it('ends node options with -- before an argument that may begin with "-"', () => {
    const unguarded = pages.flatMap((page) =>
      [...readFileSync(resolve(ROOT, page), 'utf8').matchAll(NODE_EVAL_WITH_ARGUMENT)]
        .filter((m) => m[1] !== '--')
        .map((m) => `${page}: ${m[0].slice(0, 60)}…`),
    );
    expect(unguarded).toEqual([]);
  });

  it('would catch the unguarded form', () => {
    const sample = `CHALLENGE=$(node -e 'console.log(process.argv[1])' "$VERIFIER")\n`;
    expect([...sample.matchAll(NODE_EVAL_WITH_ARGUMENT)].map((m) => m[1])).toEqual(['"$VERIFIER")']);
  });
});
