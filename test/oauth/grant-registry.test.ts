import { describe, expect, it } from 'vitest';
import { clientCredentials } from '#shared/oauth/grants/client-credentials.ts';
import { findGrant, indexBySpelling, knownGrantNames, supportedGrantTypes } from '#shared/oauth/grants/grant-registry.ts';
import { refreshToken } from '#shared/oauth/grants/refresh-token.ts';

/** The grant registry of `/token` (docs/tokens.md "Adding a grant"). */
describe('grant registry', () => {
  it('knows every spelling of docs/contract.md §5.1, each to the short name clients list (§7.7)', () => {
    const spellings: Record<string, string> = {
      client_credentials: 'client_credentials',
      password: 'password',
      refresh_token: 'refresh_token',
      authorization_code: 'authorization_code',
      code: 'authorization_code',
      authorization_code_verifier: 'authorization_code',
      device_code: 'device_code',
      'urn:ietf:params:oauth:grant-type:device_code': 'device_code',
      otp: 'otp',
      token_exchange: 'token_exchange',
      'urn:ietf:params:oauth:grant-type:token-exchange': 'token_exchange',
    };
    for (const [spelling, name] of Object.entries(spellings)) expect(findGrant(spelling)?.name, spelling).toBe(name);
    expect([...knownGrantNames].sort()).toEqual([...new Set(Object.values(spellings))].sort());
  });

  it('names nothing else: implicit (RFC 6749 §4.2), case variants, and the names every object has', () => {
    for (const spelling of [
      'implicit',
      'Client_Credentials',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
      'constructor',
      '__proto__',
      'toString',
      '',
    ]) {
      expect(findGrant(spelling), spelling).toBeUndefined();
    }
  });

  it('discovery lists each grant once by its registered name (RFC 8414 §2), never an alias, and not otp', () => {
    expect(supportedGrantTypes).toEqual([
      'client_credentials',
      'refresh_token',
      'password',
      'authorization_code',
      'urn:ietf:params:oauth:grant-type:device_code',
      'urn:ietf:params:oauth:grant-type:token-exchange',
    ]);
    // Every name listed is one /token dispatches.
    for (const name of supportedGrantTypes) expect(findGrant(name), name).toBeDefined();
    expect(findGrant('client_credentials')).toBe(clientCredentials);
    expect(findGrant('refresh_token')).toBe(refreshToken);
  });

  it('refuses a spelling registered twice (dispatch must not depend on order)', () => {
    const handle = () => Promise.reject(new Error('unused'));
    expect(() =>
      indexBySpelling([
        { name: 'a', aliases: ['x'], handle },
        { name: 'b', aliases: ['x'], handle },
      ]),
    ).toThrow('grant_type "x" is registered twice');
    expect(() =>
      indexBySpelling([
        { name: 'a', handle },
        { name: 'a', handle },
      ]),
    ).toThrow('grant_type "a" is registered twice');
  });
});
