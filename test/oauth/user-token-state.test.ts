import { describe, expect, it } from 'vitest';
import { activeUser, isUserToken, loginOf } from '../../shared/oauth/user-token-state.ts';
import type { UserRecord } from '../../shared/records/user-record.ts';
import type { AccessTokenClaims } from '../../shared/tokens/verify-access-token.ts';

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

describe('user-token-state (plan decisions 1 and 3)', () => {
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

  it('tokens_revoked_at: iat before its whole second is dead; iat in that second or later lives', () => {
    const at = { user: { ...user, tokens_revoked_at: new Date(1_800_000_000_900).toISOString() }, familyRevoked: false };
    expect(activeUser(claims({ iat: 1_799_999_999 }), at)).toBeUndefined();
    expect(activeUser(claims({ iat: 1_800_000_000 }), at)?.id).toBe(user.id);
    expect(activeUser(claims({ iat: 1_800_000_001 }), at)?.id).toBe(user.id);
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
