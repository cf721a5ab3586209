import { describe, expect, it } from 'vitest';
import { activeUser, isUserToken, loginOf, mintableNow } from '#shared/oauth/user-token-state.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import type { AccessTokenClaims } from '#shared/tokens/verify-access-token.ts';

const TENANT = '019b0000-0000-7000-8000-0000000000f0';
const user = {
  id: '019b0000-0000-7000-8000-000000000001',
  tenant_id: TENANT,
  blocked: false,
} as UserRecord;
const claims = (over: Partial<AccessTokenClaims> = {}): AccessTokenClaims => ({
  sub: user.id,
  client_id: '019b0000-0000-7000-8000-0000000000c1',
  jti: 'j',
  iat: 1_800_000_000,
  exp: 1_800_003_600,
  tenant_id: TENANT,
  ...over,
});
const live = { user, familyRevoked: false };

describe('user-token-state', () => {
  it('a token is a user’s when sub is not its client_id', () => {
    expect(isUserToken(claims())).toBe(true);
    expect(isUserToken(claims({ sub: claims().client_id }))).toBe(false);
  });

  it('active while the user exists in the token’s tenant, is not blocked and the family is not revoked', () => {
    expect(activeUser(claims(), live)).toBe(user);
    expect(activeUser(claims(), { user: undefined, familyRevoked: false })).toBeUndefined();
    expect(activeUser(claims(), { user: { ...user, blocked: true }, familyRevoked: false })).toBeUndefined();
    expect(activeUser(claims(), { user, familyRevoked: true })).toBeUndefined();
    expect(activeUser(claims({ tenant_id: '019b0000-0000-7000-8000-0000000000f1' }), live)).toBeUndefined();
  });

  it('tokens_revoked_at: iat in or before its whole second is dead (a token minted earlier in that second too); a later second lives', () => {
    const at = { user: { ...user, tokens_revoked_at: new Date(1_800_000_000_900).toISOString() }, familyRevoked: false };
    expect(activeUser(claims({ iat: 1_799_999_999 }), at)).toBeUndefined();
    expect(activeUser(claims({ iat: 1_800_000_000 }), at)).toBeUndefined();
    expect(activeUser(claims({ iat: 1_800_000_001 }), at)?.id).toBe(user.id);
  });

  it('mintableNow: outside the revocation second it is now, at once; inside it, the first moment of the next second', async () => {
    const revoked = { tokens_revoked_at: new Date(1_800_000_000_900).toISOString() };
    expect(await mintableNow({}, () => new Date(1_800_000_000_950))).toEqual(new Date(1_800_000_000_950));
    expect(await mintableNow(revoked, () => new Date(1_800_000_001_000))).toEqual(new Date(1_800_000_001_000));
    // In that second: it waits (here ~50 ms of real time) and takes the clock again.
    let t = 1_800_000_000_950;
    const started = performance.now();
    const at = await mintableNow(revoked, () => {
      const d = new Date(t);
      t = 1_800_000_001_000; // the clock after the wait
      return d;
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(40);
    expect(Math.floor(at.getTime() / 1000)).toBe(1_800_000_001);
  });

  it('mintableNow: a timer that fires early by the clock (a busy event loop) is waited out: never a time in the revocation second', async () => {
    const revoked = { tokens_revoked_at: new Date(1_800_000_000_500).toISOString() };
    // The clock at the call, then after a wait that ended 30 ms short of the next second, then past it.
    const readings = [1_800_000_000_600, 1_800_000_000_970, 1_800_000_001_001];
    let read = 0;
    const at = await mintableNow(revoked, () => new Date(readings[Math.min(read++, readings.length - 1)]!));
    expect(read).toBe(3);
    expect(at).toEqual(new Date(1_800_000_001_001));
  });

  it('an unreadable tokens_revoked_at fails closed', () => {
    expect(activeUser(claims(), { user: { ...user, tokens_revoked_at: 'not a time' }, familyRevoked: false })).toBeUndefined();
  });

  it('loginOf: only ids we could have stored reach the table; no sid means no family check', () => {
    expect(loginOf({ sub: 'u-1', sid: 's-1' })).toEqual({ userId: 'u-1', sid: 's-1' });
    expect(loginOf({ sub: 'u-1' })).toEqual({ userId: 'u-1', sid: undefined });
    expect(loginOf({ sub: 'x'.repeat(129) })).toBeUndefined();
    expect(loginOf({ sub: 'u#1' })).toBeUndefined();
    expect(loginOf({ sub: 'u-1', sid: 's/1' })).toBeUndefined();
    expect(loginOf({ sub: 'u-1', sid: 7 })).toBeUndefined();
    expect(loginOf({ sub: 7 })).toBeUndefined();
  });
});
