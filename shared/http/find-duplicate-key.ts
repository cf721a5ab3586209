import { scanJson } from './json-bounds.ts';

const UNBOUNDED = { maxDepth: Number.POSITIVE_INFINITY, maxMembers: Number.POSITIVE_INFINITY };

/**
 * Where a member name appears twice in one object of a JSON text (its path, `a.b.0.c`), or
 * undefined. RFC 8259 §4 says names SHOULD be unique and leaves duplicates to the parser
 * (JSON.parse keeps the last), so `{"scope":"a","scope":"b"}` would mean one thing to us and
 * another to a proxy or WAF that keeps the first (docs/security.md "Input rules": a 400). Names
 * compare after unescaping (`"a"` = `"\u0061"`). One linear pass (json-bounds.ts `scanJson`,
 * which the request pipeline runs with its bounds); on text JSON.parse refuses the answer means
 * nothing.
 */
export function findDuplicateKey(json: string): string[] | undefined {
  const scan = scanJson(json, UNBOUNDED);
  return scan.kind === 'duplicate' ? scan.path : undefined;
}
