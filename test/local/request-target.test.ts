import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestTarget } from '../../infra/local/server.ts';

/**
 * The local server reads a plain request target without the URL parser (a per-request saving,
 * docs/benchmarks.md "Item 9, round 3"): for every target it must route exactly as `new URL`
 * would, dot segments, escapes, fragments and odd characters included.
 */
const viaUrl = (target: string) => {
  if (!target.startsWith('/') || target.startsWith('//')) return undefined;
  try {
    const u = new URL(`http://localhost${target}`);
    return { pathname: u.pathname, query: [...u.searchParams] };
  } catch {
    return undefined;
  }
};
const viaTarget = (target: string) => {
  const t = requestTarget(target);
  return t && { pathname: t.pathname, query: [...t.searchParams] };
};

describe('request target of the local server', () => {
  it('reads plain paths and queries as the URL parser does', () => {
    for (const target of [
      '/token',
      '/token/',
      '/',
      '/.well-known/openid-configuration',
      '/identity/v1/clients/0190a0a0-bbbb-7000-8000-00000000be0c?limit=50&offset=900',
      '/identity/v1/clients?fields=a,b&x=1+2&y=%20&z=%C3%A9&empty&=v',
      '/tokeninfo?token=a.b.c&token=d',
    ]) {
      expect(viaTarget(target)).toEqual(viaUrl(target));
    }
  });

  it('leaves dot segments, escapes, fragments and other characters to the URL parser', () => {
    expect(viaTarget('/identity/v1/../../token')).toEqual({ pathname: '/token', query: [] });
    expect(viaTarget('/identity/./v1/%2e%2e/x')).toEqual(viaUrl('/identity/./v1/%2e%2e/x'));
    expect(viaTarget('/token#frag?x=1')).toEqual({ pathname: '/token', query: [] });
    expect(viaTarget('/token?a=1#b=2')).toEqual({ pathname: '/token', query: [['a', '1']] });
    expect(viaTarget('/to ken')).toEqual({ pathname: '/to%20ken', query: [] });
    expect(viaTarget('/a\\b')).toEqual({ pathname: '/a/b', query: [] });
    // Raw non-ASCII beside an incomplete escape: URLSearchParams alone decodes it differently.
    expect(viaTarget('/?é%e2')).toEqual({ pathname: '/', query: [['é\uFFFD', '']] });
    expect(viaTarget('/?é%e2')).toEqual(viaUrl('/?é%e2'));
    expect(requestTarget('//identity/v1/clients')).toBeUndefined();
    expect(requestTarget('http://evil.example/token')).toBeUndefined();
    expect(requestTarget(undefined)).toBeUndefined();
  });

  it('agrees with new URL on any target (property)', () => {
    const char = fc.constantFrom(...'/./..%2e?#&=+ aZ09-_~\\é%41\t"<>`{}|^[]@:!$\'()*,;\x7f\x85\x00\r'.split(''));
    fc.assert(
      fc.property(fc.array(char, { maxLength: 24 }), (chars) => {
        const target = `/${chars.join('')}`;
        expect(viaTarget(target)).toEqual(viaUrl(target));
      }),
      { numRuns: 20_000 },
    );
  });
});
