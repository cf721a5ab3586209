import { describe, expect, it } from 'vitest';
import { defineCollection } from '#shared/lists/collection-spec.ts';
import { ParamSyntaxError } from '#shared/lists/list-params.ts';
import { matchesFilter } from '#shared/lists/match-filter.ts';
import { parseFilter } from '#shared/lists/parse-filter.ts';

// One attribute of each type (docs/contract.md §3: "values are compared as the attribute's type").
const spec = defineCollection({
  name: 'widgets',
  attributes: {
    id: 'uuid',
    name: 'string',
    size: 'number',
    enabled: 'boolean',
    owner_id: 'uuid',
    created_at: 'timestamp',
    meta: 'object',
  },
});

const ID = '0195a0b0-0000-7000-8000-0000000000aa';
const widget = {
  id: ID,
  name: 'My App (prod)',
  size: 42,
  enabled: true,
  owner_id: '0195A0B0-0000-7000-8000-0000000000BB',
  created_at: '2025-03-01T10:20:30.123Z',
  meta: {},
};

const matches = (q: string, item: Record<string, unknown> = widget) => matchesFilter(spec, item, parseFilter(spec, q));

describe('q: one term of each type', () => {
  it.each([
    ['(name=My App (prod))', 'error'], // a bare value ends at the first ")": quote values holding one
    ['(name="My App (prod)")', true],
    ['(name=My App)', false],
    ['(name="my app (prod)")', false], // strings: exact, case-sensitive
    ['( name = "My App (prod)" )', true],
    ['(size=42)', true],
    ['(size=42.0)', true],
    ['(size=4.2e1)', true],
    ['(size=41)', false],
    ['(enabled=true)', true],
    ['(enabled=TRUE)', true],
    ['(enabled=false)', false],
    ['(owner_id=0195a0b0-0000-7000-8000-0000000000bb)', true], // UUIDs: case-insensitive
    ['(id=0195A0B0-0000-7000-8000-0000000000AA)', true],
    ['(created_at=2025-03-01T10:20:30.123Z)', true],
    ['(created_at=2025-03-01T11:20:30.123+01:00)', true], // same instant, other zone
    ['(created_at=2025-03-01T10:20:30.123456Z)', true], // fractions beyond ms are cut
    ['(created_at=2025-03-01T10:20:30Z)', false],
    ['(created_at=2025-03-01)', true], // a date = that whole UTC day
    ['(created_at=2025-03-02)', false],
    ['(name=null)', false],
    ['(missing_not_an_attribute=1)', 'error'],
  ])('%s → %s', (q, expected) => {
    if (expected === 'error') expect(() => matches(q)).toThrow(ParamSyntaxError);
    else expect(matches(q)).toBe(expected);
  });
});

describe('q: several terms', () => {
  it('ANDs terms; "and" in any case, spaces or + around it', () => {
    expect(matches('(size=42) and (enabled=true)')).toBe(true);
    expect(matches('(size=42) AND (enabled=false)')).toBe(false);
    expect(matches('(size=42)+and+(enabled=true)')).toBe(true);
    expect(matches('(size=42)and(enabled=true)')).toBe(true);
    expect(matches('(size=42) And (enabled=true) aNd (name="My App (prod)")')).toBe(true);
  });

  it('parses to typed terms', () => {
    expect(parseFilter(spec, '(size=42) and (enabled=false) and (created_at=2025-03-01)')).toEqual([
      { attribute: 'size', value: { kind: 'number', value: 42 } },
      { attribute: 'enabled', value: { kind: 'boolean', value: false } },
      {
        attribute: 'created_at',
        value: { kind: 'instant', from: Date.parse('2025-03-01T00:00:00Z'), to: Date.parse('2025-03-02T00:00:00Z') },
      },
    ]);
  });

  it('the same attribute twice is allowed (and usually matches nothing)', () => {
    expect(matches('(size=42) and (size=43)')).toBe(false);
  });
});

describe('q: quoting, null and missing attributes', () => {
  it('escapes \\" and \\\\ inside quotes', () => {
    expect(matches('(name="say \\"hi\\" \\\\o/")', { ...widget, name: 'say "hi" \\o/' })).toBe(true);
  });

  it('"" matches the empty string, and only it', () => {
    expect(matches('(name="")', { ...widget, name: '' })).toBe(true);
    expect(matches('(name="")', { id: ID })).toBe(false);
  });

  it('bare null matches a missing attribute; quoted "null" is the string', () => {
    expect(matches('(name=null)', { id: ID })).toBe(true);
    expect(matches('(size=null)', { id: ID, size: null })).toBe(true);
    expect(matches('(name="null")', { id: ID, name: 'null' })).toBe(true);
    expect(matches('(name="null")', { id: ID })).toBe(false);
  });

  it('a missing boolean is not false, a missing number is not 0', () => {
    expect(matches('(enabled=false)', { id: ID })).toBe(false);
    expect(matches('(size=0)', { id: ID })).toBe(false);
  });

  it('+ inside a value is literal (percent-encode spaces as %20)', () => {
    expect(matches('(name=a+b)', { id: ID, name: 'a+b' })).toBe(true);
  });
});
