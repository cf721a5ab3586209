import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../infra/local/token-bucket.ts';

describe('local throttle (API Gateway token bucket)', () => {
  it('allows a burst, refuses beyond it, and refills at the rate', () => {
    let now = 0;
    const bucket = new TokenBucket(10, 3, () => now);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    now += 100; // 0.1 s at 10/s = one token
    expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
    now += 10_000; // never more than the burst
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
  });
});
