/**
 * The bounds every JSON request body is held to before anything parses or walks it
 * (docs/security.md "Exhaustion bounds"). Nesting: every stored open object is refused past 16
 * levels (shared/management/kit/fields.ts) and sits a few levels into its body, so 64 refuses no
 * body a field could accept. Members and elements, counted over the whole body: the largest real
 * body (50 ids of a link change, 50 `app_metadata` entries, metadata objects of a few hundred
 * members) is far below 10,000; within the 64 KB body limit only one-character values packed as
 * `[0,0,...]` come near it, and no field of ours is such a list.
 */
export const JSON_LIMITS = { maxDepth: 64, maxMembers: 10_000 } as const;

export interface JsonLimits {
  readonly maxDepth: number;
  readonly maxMembers: number;
}

/** What one pass over a JSON text found first. */
export type JsonScan =
  | { readonly kind: 'ok' }
  | { readonly kind: 'too_deep' }
  | { readonly kind: 'too_many_members' }
  /** A member name repeated in one object, at this path (`a.b.0.c`); meaningful only if the text parses. */
  | { readonly kind: 'duplicate'; readonly path: string[] };

interface Level {
  /** The names seen in this object; null: an array. */
  readonly names: Set<string> | null;
  /** The member being read (objects) or the element's index (arrays): the level's part of a path. */
  key: string;
  index: number;
}

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const isWhiteSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * One linear pass over a JSON text, before JSON.parse: the nesting depth and the number of
 * members and elements are checked as they are met, so a refused text costs no more than reading
 * it up to the first level or member too many; and a member name repeated in one object is found
 * (RFC 8259 §4 leaves duplicates to the parser, which keeps the last, where a proxy or WAF may
 * keep the first). Per open level only its names and current key are kept; a path is built only
 * for the duplicate found, so a deep text costs O(length), not O(depth²).
 *
 * Any text is accepted, well-formed or not, and never read past its end: on malformed text the
 * depth and count are still bounds, and a duplicate is only a candidate, for the caller to report
 * once the text has parsed. Names compare after unescaping (`"a"` = `"\u0061"`).
 */
export function scanJson(text: string, limits: JsonLimits = JSON_LIMITS): JsonScan {
  const stack: Level[] = [];
  const n = text.length;
  let members = 0;
  // The next value-or-close decides whether the level just opened has a first member.
  let opened = false;
  let expectName = false;
  let duplicate: string[] | undefined;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (isWhiteSpace(c)) continue;
    if (opened) {
      opened = false;
      if (c !== CLOSE_OBJECT && c !== CLOSE_ARRAY && ++members > limits.maxMembers) return { kind: 'too_many_members' };
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (stack.length >= limits.maxDepth) return { kind: 'too_deep' };
      stack.push({ names: c === OPEN_OBJECT ? new Set() : null, key: '', index: 0 });
      opened = true;
      expectName = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      stack.pop();
      expectName = false;
    } else if (c === COMMA) {
      const top = stack.at(-1);
      if (++members > limits.maxMembers) return { kind: 'too_many_members' };
      if (top) {
        top.index++;
        expectName = top.names !== null;
      }
    } else if (c === QUOTE) {
      let j = i + 1;
      let escaped = false;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === QUOTE) break;
        if (d === BACKSLASH) {
          escaped = true;
          j += 2;
        } else j++;
      }
      const top = stack.at(-1);
      if (expectName && top?.names && !duplicate) {
        const name = escaped ? unescapeName(text.slice(i, j + 1)) : text.slice(i + 1, j);
        if (name !== undefined) {
          if (top.names.has(name)) duplicate = pathTo(stack, name);
          else top.names.add(name);
          top.key = name;
        }
      }
      expectName = false;
      i = j;
    }
  }
  return duplicate ? { kind: 'duplicate', path: duplicate } : { kind: 'ok' };
}

/** A quoted name with escapes, as JSON.parse reads it; undefined for a malformed one (the parser refuses the text). */
function unescapeName(quoted: string): string | undefined {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}

/** The path of `name` in the innermost level: each enclosing level's current member or index. */
function pathTo(stack: readonly Level[], name: string): string[] {
  const path: string[] = [];
  for (let d = 0; d < stack.length - 1; d++) {
    const level = stack[d]!;
    path.push(level.names ? level.key : String(level.index));
  }
  path.push(name);
  return path;
}
