import fc from 'fast-check';

/**
 * Hostile values the fuzzers (docs/design.md §3.12) put anywhere: wrong types and sizes, what
 * DynamoDB or JSON cannot carry, and the characters input refusals are about (controls, bidi
 * overrides, lone surrogates, zero-width and unnormalised text). `arbitrary-from-schema.ts` mixes
 * them into the values it derives; `toJsonText` writes the two things `JSON.stringify` cannot.
 */

/** A placeholder replaced after `JSON.stringify` by a raw number token JSON.stringify cannot write. */
export const RAW = '\u0000raw\u0000';
export const RAW_TOKENS = [
  '1e999',
  '-1e999',
  '1e400',
  '-0',
  '1e-400',
  '123456789012345678901234567890',
  '0.1e-999',
  '9007199254740993',
  '1E2',
] as const;

/** A key prefix `toJsonText` removes, so that the object's JSON names a member twice. */
export const DUPLICATE = '\u0000dup\u0000';

/** JSON text of `value` with `RAW` written as `raw` and `DUPLICATE`-prefixed keys as plain repeats. */
export function toJsonText(value: unknown, raw: string = RAW_TOKENS[0]): string {
  return (JSON.stringify(value) ?? 'null').replaceAll(JSON.stringify(RAW), raw).replaceAll(JSON.stringify(DUPLICATE).slice(0, -1), '"');
}

/** The name a form body carries for a (possibly `DUPLICATE`-prefixed) key. */
export const formName = (key: string) => (key.startsWith(DUPLICATE) ? key.slice(DUPLICATE.length) : key);

export const hugeString = (n: number) => fc.constant('x'.repeat(n));

/** `{"a":{"a":...}}` / `[[...]]`, `depth` levels: past DynamoDB's 32-level document limit. */
export function deepObject(depth: number): unknown {
  let x: unknown = depth % 2 ? 'leaf' : 1;
  for (let i = 0; i < depth; i++) x = i % 3 === 2 ? [x] : { a: x };
  return x;
}

/** Numbers DynamoDB cannot store (range 1e-130..1e126, 38 digits) or JSON cannot carry. */
export const awkwardNumber = fc.constantFrom(1e20, 2 ** 53 + 2, -1e300, 1e300, 1e-300, 5e-324, -0, 0.1 + 0.2, Number.MAX_VALUE, RAW);

/** Characters that text refusals are about: C0/C1 controls, bidi overrides and isolates, zero-width, BOM, lone surrogates. */
export const HOSTILE_CHARS = [
  '\u0000',
  '\u0007',
  '\t',
  '\n',
  '\r',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u009b',
  '\u202e',
  '\u202d',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200f',
  '\u061c',
  '\u200b',
  '\u200d',
  '\u2028',
  '\u2060',
  '\ufeff',
  '\ufffd',
  '\ud800',
  '\udfff',
] as const;

/**
 * A valid string turned into its near misses: a hostile character at the start, middle or end,
 * surrounding blanks, another case, decomposed Unicode (NFD), one character short, doubled.
 */
export function nearMissString(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const insert = withHostileChar(valid);
  const reshape = fc
    .tuple(valid, fc.constantFrom('upper', 'lower', 'spaces', 'newline', 'nfd', 'short', 'double', 'accent'))
    .map(([s, how]) => {
      switch (how) {
        case 'upper':
          return s.toUpperCase();
        case 'lower':
          return s.toLowerCase();
        case 'spaces':
          return ` ${s} `;
        case 'newline':
          return `${s}\n`;
        case 'nfd':
          return `${s}\u00e9`.normalize('NFD');
        case 'short':
          return s.slice(0, -1);
        case 'double':
          return s + s;
        default:
          return `${s}\u0301`;
      }
    });
  return fc.oneof({ weight: 3, arbitrary: insert }, { weight: 2, arbitrary: reshape });
}

/** `valid` with one of `HOSTILE_CHARS` at its start, middle or end. */
export function withHostileChar(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(valid, fc.constantFrom(...HOSTILE_CHARS), fc.nat()).map(([s, c, i]) => {
    const at = s.length === 0 ? 0 : i % (s.length + 1);
    return `${s.slice(0, at)}${c}${s.slice(at)}`;
  });
}

/** Strings that are hostile on their own. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\t\n',
    '\u0000',
    '\ud800',
    'a\udfffb',
    '\u202egnp.exe',
    'admin\u200b',
    '\u200b\u200b',
    '\u200b \u2060',
    'e\u0301',
    '\ufeff',
    '\ufffd',
    '%00',
    '../',
    '__proto__',
    'constructor',
  ),
  fc.string({ unit: 'binary', maxLength: 20 }),
  hugeString(5_000),
);

/** Values of the wrong type or size for about any field. */
export const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, '', ' ', '\t\n', '\u0000', '\ud800', 'a\udfffb', [], {}, [null], { '': '' }),
  awkwardNumber,
  fc.string(),
  hostileString,
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 2 }),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.integer({ min: 20, max: 60 }).map(deepObject),
);

/** JSON values DynamoDB stores (fc.jsonValue's doubles are mostly out of its range). */
export const plainJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { maxLength: 3 }),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean()), {
    maxKeys: 3,
  }),
);

/** Keys tried as unknown members: prototype names, record fields a client must not set, the empty name. */
export const EXTRA_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'id',
  'version',
  'aggregations',
  'created_at',
  'tenant_id',
  '',
] as const;

/** `Object.defineProperty`: `__proto__` must be an own key of the JSON, not a prototype change here. */
export const define = (o: Record<string, unknown>, k: string, v: unknown) =>
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
