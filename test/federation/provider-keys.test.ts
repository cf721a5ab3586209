import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProviderTokenError } from '#shared/federation/federation-errors.ts';
import { REFRESH_COOLDOWN_MS } from '#shared/federation/provider-keys.ts';
import { verifyProviderIdToken } from '#shared/federation/verify-provider-id-token.ts';
import { type ExternalProvider, providerKeyCache, startExternalProvider } from '../support/oauth/external-provider.ts';

/**
 * The key cache against a real oidc-provider that rotates its signing key: a token under a key
 * the cache does not hold causes one JWKS read, and no more than one per 30 s however many such
 * tokens arrive (jose's cooldown). Reads are counted in the provider's own request log. The clock
 * is moved with a fake `Date` (sockets and timers stay real).
 */
let provider: ExternalProvider;

const jwksReads = () => provider.requests.filter((path) => path === '/jwks').length;
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof ProviderTokenError ? e.reason : String(e)),
  );

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-11-29T09:00:00Z'));
  provider = await startExternalProvider();
});
afterEach(async () => {
  vi.useRealTimers();
  await provider.stop();
});

const advance = (ms: number) => vi.setSystemTime(Date.now() + ms);

describe('provider key refresh', () => {
  it('after a rotation, reads the JWKS once on the new kid and then verifies', async () => {
    const cache = providerKeyCache();
    const keys = await cache.keysOf({ issuer: provider.issuer });
    const check = { audience: provider.clientId };
    await verifyProviderIdToken(await provider.mintIdToken({ sub: 'a' }), keys, check);
    expect(jwksReads()).toBe(1);

    provider.rotateKeys();
    const rotated = await provider.mintIdToken({ sub: 'b' });
    // Within the cooldown of the first read: the unknown kid is refused without a read.
    expect(await outcome(verifyProviderIdToken(rotated, keys, check))).toBe('unknown_key');
    expect(jwksReads()).toBe(1);

    advance(REFRESH_COOLDOWN_MS + 1);
    await expect(verifyProviderIdToken(rotated, keys, check)).resolves.toMatchObject({ sub: 'b', iss: provider.issuer });
    expect(jwksReads()).toBe(2);
    // The new set is cached: more tokens under the new key read nothing.
    await verifyProviderIdToken(await provider.mintIdToken({ sub: 'c' }), keys, check);
    expect(jwksReads()).toBe(2);
  });

  it('reads at most once per cooldown for a burst of unknown kids, concurrent or not', async () => {
    const cache = providerKeyCache();
    const keys = await cache.keysOf({ issuer: provider.issuer });
    const check = { audience: provider.clientId };
    await verifyProviderIdToken(await provider.mintIdToken({ sub: 'a' }), keys, check);
    expect(jwksReads()).toBe(1);

    // Tokens of a key the provider never published: each a kid nobody has.
    const strangers = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const p = await startExternalProvider();
        const token = await p.mintIdToken({ sub: 'x' });
        await p.stop();
        return token;
      }),
    );
    advance(REFRESH_COOLDOWN_MS + 1);
    const burst = Array.from({ length: 50 }, (_, i) => outcome(verifyProviderIdToken(strangers[i % 5]!, keys, check)));
    expect(new Set(await Promise.all(burst))).toEqual(new Set(['unknown_key']));
    expect(jwksReads()).toBe(2);

    // Still within the cooldown of that read: more unknown kids, one at a time, read nothing.
    for (let i = 0; i < 20; i++) {
      advance(1000);
      expect(await outcome(verifyProviderIdToken(strangers[i % 5]!, keys, check))).toBe('unknown_key');
    }
    expect(jwksReads()).toBe(2);

    // The cooldown over, the next unknown kid reads once more.
    advance(REFRESH_COOLDOWN_MS);
    expect(await outcome(verifyProviderIdToken(strangers[0]!, keys, check))).toBe('unknown_key');
    expect(jwksReads()).toBe(3);
  });

  it('when a refresh times out, backs off: cached keys still verify, unknown kids are refused without a read', async () => {
    const cache = providerKeyCache();
    const keys = await cache.keysOf({ issuer: provider.issuer });
    const check = { audience: provider.clientId };
    const known = await provider.mintIdToken({ sub: 'a' });
    await verifyProviderIdToken(known, keys, check);
    const stranger = await startExternalProvider();
    const unknown = await stranger.mintIdToken({ sub: 'x' });
    await stranger.stop();

    provider.hang();
    advance(REFRESH_COOLDOWN_MS + 1);
    const started = performance.now();
    expect(await outcome(verifyProviderIdToken(unknown, keys, check))).toMatch(/did not answer within 2000 ms/);
    expect(performance.now() - started).toBeLessThan(2750);
    expect(jwksReads()).toBe(2);

    const again = performance.now();
    await expect(verifyProviderIdToken(known, keys, check)).resolves.toMatchObject({ sub: 'a' });
    expect(await outcome(verifyProviderIdToken(unknown, keys, check))).toBe('unknown_key');
    expect(performance.now() - again).toBeLessThan(1000);
    expect(jwksReads()).toBe(2);
  });

  it('keeps each provider its own keys, and a bounded number of providers', async () => {
    const second = await startExternalProvider();
    try {
      const cache = providerKeyCache({ maxProviders: 2 });
      const a = await cache.keysOf({ issuer: provider.issuer });
      const b = await cache.keysOf({ issuer: second.issuer });
      const check = { audience: provider.clientId };
      await verifyProviderIdToken(await provider.mintIdToken({ sub: 'a' }), a, check);
      // The second provider's token under the first's keys: the issuer differs and so does every kid.
      expect(await outcome(verifyProviderIdToken(await second.mintIdToken({ sub: 'b' }), a, check))).toBe('unknown_key');
      await expect(verifyProviderIdToken(await second.mintIdToken({ sub: 'b' }), b, check)).resolves.toMatchObject({ iss: second.issuer });

      // Same issuer, a configured JWKS URL: another entry, which reads no discovery document.
      const direct = await cache.keysOf({ issuer: provider.issuer, jwksUri: provider.jwksUri });
      expect(direct.metadata).toBeUndefined();
      expect(cache.size).toBe(2);
      expect(await cache.keysOf({ issuer: provider.issuer, jwksUri: provider.jwksUri })).toBe(direct);
      // The least recently used (the first provider through discovery) was dropped: asked again, it is read again.
      expect(provider.requests.filter((p) => p === '/.well-known/openid-configuration')).toHaveLength(1);
      expect(await cache.keysOf({ issuer: provider.issuer })).not.toBe(a);
      expect(provider.requests.filter((p) => p === '/.well-known/openid-configuration')).toHaveLength(2);
    } finally {
      await second.stop();
    }
  });
});
