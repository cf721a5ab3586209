import { describe, expect, it } from 'vitest';
import { userClaims } from '#shared/oauth/user-tokens/user-claims.ts';
import type { UserRecord } from '#shared/records/user-record.ts';

const base: UserRecord = {
  id: '019b0000-0000-7000-8000-000000000001',
  tenant_id: '019b0000-0000-7000-8000-0000000000f0',
  email_verified: false,
  phone_verified: false,
  user_metadata: {},
  app_metadata: [],
  blocked: false,
  last_login: null,
  logins_count: 0,
  aggregations: { roles: 0, groups: 0, permissions: 0 },
  version: 1,
  created_by: 'x',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_by: 'x',
  updated_at: '2026-02-03T04:05:06.789Z',
};

const full: UserRecord = {
  ...base,
  email: 'ada@example.com',
  email_verified: true,
  username: 'ada',
  phone_number: '+15551234567',
  phone_verified: true,
  name: 'Ada Lovelace',
  given_name: 'Ada',
  family_name: 'Lovelace',
  middle_name: 'King',
  nickname: 'countess',
  picture: 'https://example.com/ada.png',
  website: 'https://example.com',
  gender: 'female',
  birthdate: '1815-12-10',
  zoneinfo: 'Europe/London',
  locale: 'en-GB',
  address: { country: 'UK', locality: 'London', street_address: '12 St James Sq' },
  password_hash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
  tokens_revoked_at: '2026-01-01T00:00:00.000Z',
};

describe('userClaims (OIDC Core §5.4, spec 2.12, docs/contract.md §7.1/§7.6)', () => {
  it('openid alone releases nothing (sub is the caller’s to add)', () => {
    expect(userClaims(full, ['openid'])).toEqual({});
  });

  it('profile: the §5.4 profile claims, preferred_username = username, both birthdate spellings, ISO updated_at', () => {
    expect(userClaims(full, ['openid', 'profile'])).toEqual({
      name: 'Ada Lovelace',
      given_name: 'Ada',
      family_name: 'Lovelace',
      middle_name: 'King',
      nickname: 'countess',
      preferred_username: 'ada',
      picture: 'https://example.com/ada.png',
      website: 'https://example.com',
      gender: 'female',
      birthdate: '1815-12-10',
      birthday: '1815-12-10',
      zoneinfo: 'Europe/London',
      locale: 'en-GB',
      updated_at: '2026-02-03T04:05:06.789Z',
    });
  });

  it('email: email and email_verified', () => {
    expect(userClaims(full, ['email'])).toEqual({ email: 'ada@example.com', email_verified: true });
    expect(userClaims({ ...full, email_verified: false }, ['email'])).toEqual({ email: 'ada@example.com', email_verified: false });
  });

  it('phone: phone_number / phone and phone_number_verified / phone_verified', () => {
    expect(userClaims(full, ['phone'])).toEqual({
      phone_number: '+15551234567',
      phone_number_verified: true,
      phone: '+15551234567',
      phone_verified: true,
    });
  });

  it('address: only the members that have a value', () => {
    expect(userClaims(full, ['address'])).toEqual({
      address: { country: 'UK', locality: 'London', street_address: '12 St James Sq' },
    });
    expect(userClaims({ ...full, address: { country: '' } }, ['address'])).toEqual({});
  });

  it('only claims that have a value: a bare user releases updated_at alone, and no verified flag without its address or number', () => {
    expect(userClaims(base, ['openid', 'profile', 'email', 'address', 'phone'])).toEqual({ updated_at: base.updated_at });
  });

  it('never releases storage-only fields, metadata or the id', () => {
    const all = userClaims(full, ['openid', 'profile', 'email', 'address', 'phone', 'offline_access']);
    for (const k of ['password_hash', 'tokens_revoked_at', 'version', 'user_metadata', 'app_metadata', 'blocked', 'id', 'sub', 'tenant_id'])
      expect(all).not.toHaveProperty(k);
  });

  it('scope names are case sensitive (spec 4.2): PROFILE releases nothing', () => {
    expect(userClaims(full, ['PROFILE', 'Email'])).toEqual({});
  });
});
