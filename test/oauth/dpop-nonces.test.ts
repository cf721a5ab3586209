import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DPOP_NONCE_SLICE_SECONDS, dpopNonces } from '#shared/oauth/dpop/dpop-nonces.ts';

/** The stateless DPoP nonces (RFC 9449 §8; docs/client-authentication.md "Sender-constrained tokens (DPoP)"). */
describe('DPoP nonces', () => {
  const secret = randomBytes(32);
  let clock = Date.UTC(2026, 0, 1);
  const nonces = dpopNonces(
    async () => secret,
    () => new Date(clock),
  );

  it('the current nonce is accepted in its slice and the next one, not later; it is NQCHAR only', async () => {
    clock = Date.UTC(2026, 0, 1);
    const nonce = await nonces.current();
    expect(nonce).toMatch(/^\d+\.[A-Za-z0-9_-]{22}$/);
    expect(await nonces.accepts(nonce)).toBe(true);
    clock += DPOP_NONCE_SLICE_SECONDS * 1000;
    expect(await nonces.accepts(nonce)).toBe(true);
    expect(await nonces.current()).not.toBe(nonce);
    clock += DPOP_NONCE_SLICE_SECONDS * 1000;
    expect(await nonces.accepts(nonce)).toBe(false);
  });

  it('a nonce of another key, a changed MAC or slice, a future slice, garbage: refused', async () => {
    clock = Date.UTC(2026, 0, 1);
    const nonce = await nonces.current();
    const [slice, mac] = nonce.split('.') as [string, string];
    const other = await dpopNonces(
      async () => randomBytes(32),
      () => new Date(clock),
    ).current();
    const flipped = `${slice}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    for (const bad of [other, flipped, `${Number(slice) - 1}.${mac}`, `${Number(slice) + 1}.${mac}`, '', 'x', `${slice}.${mac}=`]) {
      expect(await nonces.accepts(bad), bad).toBe(false);
    }
  });

  it('a failed secret read is not remembered: the next call reads again', async () => {
    let calls = 0;
    const flaky = dpopNonces(
      async () => {
        calls++;
        if (calls === 1) throw new Error('store unavailable');
        return secret;
      },
      () => new Date(clock),
    );
    await expect(flaky.current()).rejects.toThrow('store unavailable');
    expect(await flaky.current()).toMatch(/^\d+\./);
    expect(calls).toBe(2);
  });
});
