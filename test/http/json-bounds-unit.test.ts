import { describe, expect, it } from 'vitest';
import { findDuplicateKey } from '#shared/http/find-duplicate-key.ts';
import { JSON_LIMITS, scanJson } from '#shared/http/json-bounds.ts';

/** The one pass over a JSON body before anything parses it (docs/security.md "Exhaustion bounds"). */
const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** `{"a":[{"a":[...`, `depth` levels in all. */
const mixed = (depth: number) => {
  const open = Array.from({ length: depth }, (_, i) => (i % 2 ? '[' : '{"a":')).join('');
  const close = Array.from({ length: depth }, (_, i) => (i % 2 ? ']' : '}'))
    .reverse()
    .join('');
  return `${open}1${close}`;
};
const elements = (n: number) => `[${Array.from({ length: n }, () => '0').join(',')}]`;

describe('nesting: at most 64 levels of objects and arrays', () => {
  it.each([
    ['arrays', arrays],
    ['objects', objects],
    ['arrays in objects', mixed],
  ])('%s: 64 levels pass, 65 are refused', (_, make) => {
    expect(JSON_LIMITS.maxDepth).toBe(64);
    expect(scanJson(make(64))).toEqual({ kind: 'ok' });
    expect(scanJson(make(65))).toEqual({ kind: 'too_deep' });
  });

  it('refuses at the first level too many, before reading on: 30,000 levels cost one short pass', () => {
    const started = performance.now();
    expect(scanJson(arrays(30_000))).toEqual({ kind: 'too_deep' });
    expect(scanJson(`${'['.repeat(65)}`)).toEqual({ kind: 'too_deep' });
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('brackets inside strings, escaped quotes included, are not nesting', () => {
    const inString = `["${'['.repeat(100)}\\"${'{'.repeat(100)}"]`;
    expect(scanJson(inString)).toEqual({ kind: 'ok' });
    expect(scanJson(`{"\\"${'['.repeat(100)}":"\\\\","b":${arrays(63)}}`)).toEqual({ kind: 'ok' });
    expect(scanJson(`{"\\"":"\\\\","b":${arrays(64)}}`)).toEqual({ kind: 'too_deep' });
  });
});

describe('members and elements: at most 10,000 in the whole body', () => {
  it('10,000 pass, 10,001 are refused, counted over every level', () => {
    expect(JSON_LIMITS.maxMembers).toBe(10_000);
    expect(scanJson(elements(10_000))).toEqual({ kind: 'ok' });
    expect(scanJson(elements(10_001))).toEqual({ kind: 'too_many_members' });
    // 5,000 members holding one element each: 10,000 in all.
    const members = (n: number) => `{${Array.from({ length: n }, (_, i) => `"m${i}":[0]`).join(',')}}`;
    expect(scanJson(members(5000))).toEqual({ kind: 'ok' });
    expect(scanJson(`[${members(5000)}]`)).toEqual({ kind: 'too_many_members' });
  });

  it('empty objects and arrays hold nothing; commas inside strings are not members', () => {
    expect(scanJson('[[],{},[ ],{ }]', { maxDepth: 64, maxMembers: 4 })).toEqual({ kind: 'ok' });
    expect(scanJson('[[],{},[ ],{ },[]]', { maxDepth: 64, maxMembers: 4 })).toEqual({ kind: 'too_many_members' });
    expect(scanJson('["a,b,c,d,e"]', { maxDepth: 64, maxMembers: 1 })).toEqual({ kind: 'ok' });
  });
});

describe('duplicate member names, in the same pass', () => {
  it.each([
    ['{"a":1,"a":2}', ['a']],
    ['{"a":1,"\\u0061":2}', ['a']],
    ['{"a":{"b":1,"c":{"d":1,"d":2}}}', ['a', 'c', 'd']],
    ['[{"x":1},{"x":1,"x":2}]', ['1', 'x']],
    ['{"k\\"":1,"k\\"":2}', ['k"']],
    ['{"a\\"[{":[1,{"b":2}],"c":[[],[{"d":1,"d":1}]]}', ['c', '1', '0', 'd']],
  ])('%s → %j (the path the pipeline names)', (json, path) => {
    expect(scanJson(json)).toEqual({ kind: 'duplicate', path });
    expect(findDuplicateKey(json)).toEqual(path);
  });

  it('a duplicate 63 levels deep has its whole path; the bounds still win over a duplicate', () => {
    const deep = `${'{"a":'.repeat(62)}{"z":1,"z":2}${'}'.repeat(62)}`;
    expect(scanJson(deep)).toEqual({ kind: 'duplicate', path: [...Array(62).fill('a'), 'z'] });
    expect(scanJson(`[{"z":1,"z":2},${arrays(65)}]`)).toEqual({ kind: 'too_deep' });
  });

  it('linear however deep: 20,000 levels (no bound) scan in well under a second', () => {
    const started = performance.now();
    const deepDuplicate = `${'{"a":'.repeat(19_999)}{"z":1,"z":2}${'}'.repeat(19_999)}`;
    expect(findDuplicateKey(deepDuplicate)).toEqual([...Array(19_999).fill('a'), 'z']);
    expect(findDuplicateKey(arrays(20_000))).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('same names in different objects, in strings and in arrays are not duplicates', () => {
    expect(scanJson('{"a":{"a":1},"b":[{"a":1},{"a":2}],"c":"{\\"a\\":1,\\"a\\":2}"}')).toEqual({ kind: 'ok' });
    expect(scanJson('[1,2,"x",{}]')).toEqual({ kind: 'ok' });
  });
});

describe('malformed text: never read past its end, never thrown', () => {
  it.each([
    ['an unterminated string', '{"a":"abc'],
    ['a string ending in a backslash', '["abc\\'],
    ['closers without openers', ']]]}}}'],
    ['a bad escape in a name', '{"\\x":1,"\\x":2}'],
    ['nothing', ''],
  ])('%s', (_, text) => {
    expect(scanJson(text)).toEqual({ kind: 'ok' });
  });

  it('the bounds hold on malformed text too', () => {
    expect(scanJson(`"${'['.repeat(10)}" ${'['.repeat(65)}`)).toEqual({ kind: 'too_deep' });
    expect(scanJson(`1${',0'.repeat(10_000)}`)).toEqual({ kind: 'ok' });
    expect(scanJson(`1${',0'.repeat(10_001)}`)).toEqual({ kind: 'too_many_members' });
  });
});
