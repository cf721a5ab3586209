import { describe, expect, it } from 'vitest';
import { isAppError } from '#shared/errors.ts';
import { clientsCollection as spec } from '#shared/lists/collections/clients.ts';
import { parseListParams } from '#shared/lists/parse-list-params.ts';
import { parseRecordParams } from '#shared/lists/parse-record-params.ts';

function rejection(fn: () => unknown): { status: number; code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (!isAppError(e)) throw e;
    return { status: e.status, code: e.code, message: e.message };
  }
  throw new Error('expected a 400');
}

// docs/contract.md §3: every invalid value is a 400 invalid_request whose message names the parameter.
const INVALID: [string, Record<string, string>][] = [
  ['offset', { offset: '-1' }],
  ['offset', { offset: 'abc' }],
  ['offset', { offset: '1.5' }],
  ['offset', { offset: '1e3' }],
  ['offset', { offset: '+1' }],
  ['offset', { offset: ' 1' }],
  ['offset', { offset: '0x10' }],
  ['offset', { offset: '' }],
  ['offset', { offset: '10001' }],
  ['offset', { offset: '99999999999999999999' }],
  ['limit', { limit: '0' }],
  ['limit', { limit: '101' }],
  ['limit', { limit: '-5' }],
  ['limit', { limit: 'ten' }],
  ['limit', { limit: '1.0' }],
  ['limit', { limit: '' }],
  ['limit', { limit: '1000000000000' }],
  ['fields', { fields: 'nope' }],
  ['fields', { fields: 'id,,client_name' }],
  ['fields', { fields: ',' }],
  ['fields', { fields: 'constructor' }],
  ['fields', { fields: '__proto__' }],
  ['fields', { fields: 'ID' }],
  ['expand', { expand: 'ALL' }],
  ['expand', { expand: 'true' }],
  ['expand', { expand: 'resources' }],
  ['q', { q: 'client_type=spa' }],
  ['q', { q: '(client_type=spa' }],
  ['q', { q: '(unknown=1)' }],
  ['q', { q: '(constructor=1)' }],
  ['q', { q: '(client_type spa)' }],
  ['q', { q: '(client_type!=spa)' }],
  ['q', { q: '(client_type>spa)' }],
  ['q', { q: '(client_type=)' }],
  ['q', { q: '(client_name="unterminated)' }],
  ['q', { q: '(client_name="a"b)' }],
  ['q', { q: '(is_public=yes)' }],
  ['q', { q: '(is_public=1)' }],
  ['q', { q: '(created_at=yesterday)' }],
  ['q', { q: '(created_at=2024-02-30)' }],
  ['q', { q: '(created_at=2024-01-01T10:00:00)' }],
  ['q', { q: '(id=not-a-uuid)' }],
  ['q', { q: '(client_metadata=x)' }],
  ['q', { q: '(client_secret=secret-1)' }],
  ['q', { q: '(client_type=spa) or (is_public=true)' }],
  ['q', { q: '(client_type=spa) (is_public=true)' }],
  ['q', { q: '(client_type=spa) and' }],
  ['q', { q: '(client_type=spa) andy (is_public=true)' }],
  ['q', { q: `(client_name=${'x'.repeat(2001)})` }],
  ['q', { q: Array.from({ length: 21 }, () => '(client_type=spa)').join(' and ') }],
  ['sort', { sort: 'nope' }],
  ['sort', { sort: 'created_at:up' }],
  ['sort', { sort: 'created_at:' }],
  ['sort', { sort: 'client_name,client_name:desc' }],
  ['sort', { sort: 'client_metadata' }],
  ['sort', { sort: 'client_secret' }],
  ['sort', { sort: 'resources' }],
  ['sort', { sort: ',' }],
  ['sort', { sort: 'created_at,' }],
  ['sort', { sort: '-created_at' }],
  ['total_count', { total_count: 'yes' }],
  ['total_count', { total_count: '1' }],
  ['total_count', { total_count: '' }],
  ['cursor', { cursor: 'has space' }],
  ['cursor', { cursor: 'a'.repeat(2049) }],
  ['cursor', { cursor: 'abc.def', offset: '5' }],
];

describe('parseListParams: invalid values (docs/contract.md §3)', () => {
  it.each(INVALID)('query.%s: 400 for %j', (param, query) => {
    const err = rejection(() => parseListParams(spec, query));
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_request');
    expect(err.message).toMatch(new RegExp(`^query\\.${param}: `));
  });

  it('names the limit rule exactly', () => {
    expect(rejection(() => parseListParams(spec, { limit: '0' })).message).toBe('query.limit: must be an integer between 1 and 100');
  });

  it('recommends cursor beyond the offset cap', () => {
    expect(rejection(() => parseListParams(spec, { offset: '10001' })).message).toMatch(/at most 10000.*cursor/);
  });

  it.each(['limit', 'offset', 'q', 'sort', 'fields', 'expand', 'total_count', 'cursor'])(
    'a repeated %s is a 400, never a crash',
    (param) => {
      const err = rejection(() => parseListParams(spec, { [param]: '1' }, { [param]: ['1', '2'] }));
      expect(err.message).toBe(`query.${param}: must be given at most once`);
    },
  );

  it('tells where the q syntax breaks', () => {
    expect(rejection(() => parseListParams(spec, { q: '(client_type=spa) (is_public=true)' })).message).toBe(
      'query.q: expected "and" between terms at position 19',
    );
  });
});

describe('parseListParams: valid values', () => {
  it('defaults (spec §8)', () => {
    expect(parseListParams(spec, null)).toEqual({
      offset: 0,
      limit: 10,
      fields: undefined,
      expand: false,
      filter: [],
      sort: undefined,
      totalCount: false,
      cursor: undefined,
    });
  });

  it('accepts the bounds', () => {
    expect(parseListParams(spec, { limit: '1', offset: '0' })).toMatchObject({ limit: 1, offset: 0 });
    expect(parseListParams(spec, { limit: '100', offset: '10000' })).toMatchObject({ limit: 100, offset: 10000 });
    expect(parseListParams(spec, { limit: '007' }).limit).toBe(7);
  });

  it.each([
    ['created_at:desc', [{ attribute: 'created_at', direction: 'desc' }]],
    ['created_at desc', [{ attribute: 'created_at', direction: 'desc' }]],
    ['created_at+desc', [{ attribute: 'created_at', direction: 'desc' }]],
    ['created_at : DESC', [{ attribute: 'created_at', direction: 'desc' }]],
    [' client_name ', [{ attribute: 'client_name', direction: 'asc' }]],
    [
      'client_type:asc, client_name:desc,created_at',
      [
        { attribute: 'client_type', direction: 'asc' },
        { attribute: 'client_name', direction: 'desc' },
        { attribute: 'created_at', direction: 'asc' },
      ],
    ],
  ])('sort=%s', (sort, expected) => {
    expect(parseListParams(spec, { sort }).sort).toEqual(expected);
  });

  it('empty sort, q, fields and cursor mean "not given"', () => {
    expect(parseListParams(spec, { sort: '', q: ' ', fields: '', cursor: '', expand: '' })).toMatchObject({
      sort: undefined,
      filter: [],
      fields: undefined,
      cursor: undefined,
      expand: false,
    });
  });

  it('fields: trimmed, de-duplicated, children allowed', () => {
    expect(parseListParams(spec, { fields: 'id, client_name,id,resources' }).fields).toEqual(['id', 'client_name', 'resources']);
  });

  it('expand=all and total_count', () => {
    expect(parseListParams(spec, { expand: 'all', total_count: 'true' })).toMatchObject({ expand: true, totalCount: true });
    expect(parseListParams(spec, { total_count: 'false' }).totalCount).toBe(false);
  });

  it('cursor with offset=0 is fine; unknown parameters are ignored', () => {
    expect(parseListParams(spec, { cursor: 'abc.def', offset: '0', foo: 'bar' })).toMatchObject({ cursor: 'abc.def', offset: 0 });
  });

  it('a parameter given once in the multi-value map is just that value', () => {
    expect(parseListParams(spec, { limit: '5' }, { limit: ['5'] }).limit).toBe(5);
  });
});

describe('parseRecordParams (single-record reads and writes)', () => {
  it('parses fields and expand', () => {
    expect(parseRecordParams(spec, { fields: 'id,permissions', expand: 'all' })).toEqual({ fields: ['id', 'permissions'], expand: true });
    expect(parseRecordParams(spec, undefined)).toEqual({ fields: undefined, expand: false });
  });

  it.each([
    ['fields', { fields: 'secret_sauce' }],
    ['expand', { expand: 'some' }],
  ])('query.%s: 400 for %j', (param, query) => {
    expect(rejection(() => parseRecordParams(spec, query)).message).toMatch(new RegExp(`^query\\.${param}: `));
  });

  it('ignores list-only parameters', () => {
    expect(parseRecordParams(spec, { limit: '1000' })).toEqual({ fields: undefined, expand: false });
  });
});
