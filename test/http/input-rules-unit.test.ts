import { describe, expect, it } from 'vitest';
import { findDuplicateKey } from '#shared/http/find-duplicate-key.ts';
import { normaliseIdentifierUrl } from '#shared/validation/identifier-url.ts';
import { unsafeTextReason } from '#shared/validation/safe-text.ts';

describe('RFC 3986 §6.2.2 normal form of identifier_url (docs/contract.md §8)', () => {
  it.each([
    ['HTTPS://API.Example.COM/v1', 'https://api.example.com/v1'], // §6.2.2.1 case
    ['https://api.example:443/v1', 'https://api.example/v1'], // §6.2.3 default port
    ['http://api.example:80', 'http://api.example/'], // §6.2.3 default port, empty path
    ['https://api.example/a/./b/../c', 'https://api.example/a/c'], // §6.2.2.3 dot segments
    ['https://api.example/a/%2E%2E/c', 'https://api.example/c'], // encoded dot segments
    ['https://api.example/%7Euser/%41%2f', 'https://api.example/~user/A%2F'], // §6.2.2.2, §6.2.2.1 hex case
    ['https://api.example/v1?x=%7e', 'https://api.example/v1?x=~'],
    ['https://bücher.example/€', 'https://xn--bcher-kva.example/%E2%82%AC'], // RFC 3987 §3.1
    ['urn:uuid:0190', 'urn:uuid:0190'],
    ['MyApp://HOST/x', 'myapp://host/x'],
    ['https://api.example:8443/', 'https://api.example:8443/'],
  ])('%s → %s', (input, normal) => {
    expect(normaliseIdentifierUrl(input)).toEqual({ url: normal });
  });

  it.each([
    ['relative', 'api/v1'],
    ['fragment', 'https://api.example/#x'],
    ['white space', 'https://api.example/ x'],
    ['empty segment', 'https://api.example/a//b'],
    ['user information', 'https://good.example@evil.example/'],
  ])('refuses %s', (_, input) => {
    expect(normaliseIdentifierUrl(input)).toHaveProperty('reason');
  });
});

describe('safe text (docs/contract.md §8)', () => {
  it.each([
    ['a\u0000b', 'control'],
    ['a\u007Fb', 'control'],
    ['a\u009Fb', 'control'],
    ['a\nb', 'control'],
    ['x\u202Ay', 'bidirectional'],
    ['x\u2069y', 'bidirectional'],
    ['x\udc00y', 'surrogates'],
    ['\u200B\u200D\uFEFF', 'blank'],
    ['', 'blank'],
  ])('refuses %j (%s)', (s, why) => {
    expect(unsafeTextReason(s)).toMatch(why);
  });

  it('keeps ordinary text, emoji and joiners inside words; descriptions keep line breaks and may be empty', () => {
    expect(unsafeTextReason('Zoë 👩‍💻 – ok')).toBeUndefined();
    expect(unsafeTextReason('one\ntwo\tthree\r\n', { multiline: true })).toBeUndefined();
    expect(unsafeTextReason('', { allowEmpty: true })).toBeUndefined();
    expect(unsafeTextReason('  ', { allowEmpty: true })).toMatch('blank');
    expect(unsafeTextReason('a\u0000', { multiline: true })).toMatch('control');
  });
});

describe('duplicate JSON member names (docs/contract.md §8)', () => {
  it.each([
    ['{"a":1,"a":2}', ['a']],
    ['{"a":1,"\\u0061":2}', ['a']],
    ['{"a":{"b":1,"c":{"d":1,"d":2}}}', ['a', 'c', 'd']],
    ['[{"x":1},{"x":1,"x":2}]', ['1', 'x']],
    ['{"k\\"":1,"k\\"":2}', ['k"']],
  ])('%s → %j', (json, path) => {
    expect(findDuplicateKey(json)).toEqual(path);
  });

  it('same names in different objects, in strings and in arrays are not duplicates', () => {
    expect(findDuplicateKey('{"a":{"a":1},"b":[{"a":1},{"a":2}],"c":"{\\"a\\":1,\\"a\\":2}"}')).toBeUndefined();
    expect(findDuplicateKey('[1,2,"x",{}]')).toBeUndefined();
  });
});
