import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { validate } from '#shared/http/validate.ts';
import { CodeParametersSchema } from '#shared/oauth/grants/code-parameters.ts';
import { idTokenAlgFor, idTokenAlgsOf } from '#shared/oauth/user-tokens/id-token-algs.ts';
import { atHash } from '#shared/oauth/user-tokens/mint-id-token.ts';
import { idTokenClaims, userClaims } from '#shared/oauth/user-tokens/user-claims.ts';
import type { UserRecord } from '#shared/records/user-record.ts';

/**
 * The pure parts of the relying-party fixes (docs/tokens.md "ID tokens", "Code parameters: both
 * spellings"); the end-to-end checks are in relying-party-defaults*.test.ts.
 */
const user = {
  id: 'u1',
  tenant_id: 't1',
  name: 'Ada',
  email: 'ada@example.com',
  email_verified: true,
  updated_at: '2026-03-04T05:06:07.890Z',
} as unknown as UserRecord;

describe('idTokenClaims (OIDC Core §5.1)', () => {
  it('is userClaims with updated_at as whole seconds since the epoch, rounded down', () => {
    const claims = idTokenClaims(user, ['openid', 'profile', 'email']);
    expect(claims).toEqual({ ...userClaims(user, ['openid', 'profile', 'email']), updated_at: Date.UTC(2026, 2, 4, 5, 6, 7) / 1000 });
    expect(Number.isInteger(claims.updated_at)).toBe(true);
  });

  it('leaves /userinfo its ISO string, and adds no updated_at without profile', () => {
    expect(userClaims(user, ['profile']).updated_at).toBe('2026-03-04T05:06:07.890Z');
    expect(idTokenClaims(user, ['openid', 'email'])).not.toHaveProperty('updated_at');
  });

  it('a stored time that does not parse is left out, never sent as a string in an ID token', () => {
    expect(idTokenClaims({ ...user, updated_at: 'yesterday' }, ['profile'])).not.toHaveProperty('updated_at');
  });
});

describe('idTokenAlgsOf / idTokenAlgFor (OIDC Registration §2, docs/keys.md "Modes")', () => {
  it('a stage signs with both, RS256 first, except kms-sign which holds one ES256 key', () => {
    expect(idTokenAlgsOf('envelope')).toEqual(['RS256', 'ES256']);
    expect(idTokenAlgsOf('local')).toEqual(['RS256', 'ES256']);
    expect(idTokenAlgsOf('kms-sign')).toEqual(['ES256']);
  });

  it("the client's algorithm where the stage has it, else the stage's first", () => {
    expect(idTokenAlgFor('RS256', idTokenAlgsOf('local'))).toBe('RS256');
    expect(idTokenAlgFor('ES256', idTokenAlgsOf('local'))).toBe('ES256');
    expect(idTokenAlgFor('RS256', idTokenAlgsOf('kms-sign'))).toBe('ES256');
    expect(idTokenAlgFor('ES256', idTokenAlgsOf('kms-sign'))).toBe('ES256');
  });
});

describe('atHash (OIDC Core §3.1.3.6)', () => {
  it('is the left half of the SHA-256 of the token for both RS256 and ES256', () => {
    const token = 'eyJhbGciOiJFUzI1NiJ9.e30.sig';
    const expected = createHash('sha256').update(token, 'ascii').digest().subarray(0, 16).toString('base64url');
    expect(atHash(token, 'RS256')).toBe(expected);
    expect(atHash(token, 'ES256')).toBe(expected);
    expect(expected).toHaveLength(22);
  });
});

describe('CodeParametersSchema (spec 4.2, RFC 6749 §4.1.3)', () => {
  const verifier = 'v'.repeat(43);
  const parse = (body: Record<string, unknown>) =>
    validate(CodeParametersSchema, { redirect_uri: 'https://a.example/cb', ...body }, 'body');

  it('settles either spelling, and says which one the client used', () => {
    expect(parse({ grant_type: 'authorization_code', authorization_code: 'c1', code_verifier: verifier })).toMatchObject({
      code: 'c1',
      code_name: 'authorization_code',
      code_verifier: verifier,
      verifier_name: 'code_verifier',
    });
    expect(parse({ grant_type: 'authorization_code', code: 'c1' })).toMatchObject({
      code: 'c1',
      code_name: 'code',
      code_verifier: undefined,
      verifier_name: undefined,
    });
  });

  it('refuses values of another type under their own name, never a 500', () => {
    for (const [name, value] of [
      ['authorization_code', ['a', 'b']],
      ['authorization_code', { a: 1 }],
      ['authorization_code_verifier', 42],
      ['code', null],
    ] as const) {
      expect(() => parse({ grant_type: 'authorization_code', code: 'c1', [name]: value }), name).toThrow(new RegExp(`^body\\.${name}: `));
    }
  });

  it('checks both spellings before anything else, the code pair first', () => {
    expect(() =>
      parse({ code: 'a', authorization_code: 'b', code_verifier: verifier, authorization_code_verifier: 'w'.repeat(43) }),
    ).toThrow('body.authorization_code: must equal code when both are sent');
  });
});
