import { describe, expect, it } from 'vitest';
import { clearedSessionCookie, csrfCookie, readCookie, secureCookies, sessionCookie } from '#shared/browser/cookies.ts';

describe('page cookies (docs/contract.md §7.4; docs/browser-flows.md "Decisions")', () => {
  it('Secure everywhere but a loopback http:// base URL', () => {
    expect(secureCookies('https://id.example.com')).toBe(true);
    expect(secureCookies('https://localhost:3000')).toBe(true);
    expect(secureCookies('http://id.example.com')).toBe(true);
    for (const local of ['http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:3000']) expect(secureCookies(local)).toBe(false);
  });

  it('session: HttpOnly, SameSite=Lax, Path=/, Max-Age 24 h, Secure when asked; cleared with Max-Age=0', () => {
    expect(sessionCookie('v', true)).toBe('session=v; Max-Age=86400; Path=/; HttpOnly; Secure; SameSite=Lax');
    expect(sessionCookie('v', false)).toBe('session=v; Max-Age=86400; Path=/; HttpOnly; SameSite=Lax');
    expect(clearedSessionCookie(true)).toBe('session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax');
    expect(csrfCookie('c', true)).toBe('csrf=c; Path=/; HttpOnly; Secure; SameSite=Lax');
  });

  it('reads the first cookie of a name; none, empty or absent is undefined', () => {
    expect(readCookie({ cookie: 'a=1; session=first; session=second' }, 'session')).toBe('first');
    expect(readCookie({ cookie: 'session=' }, 'session')).toBeUndefined();
    expect(readCookie({}, 'session')).toBeUndefined();
  });
});
