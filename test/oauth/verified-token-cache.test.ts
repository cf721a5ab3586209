import { describe, expect, it } from 'vitest';
import { verifyIssuedToken } from '#shared/oauth/verify-resource-token.ts';
import { InvalidAccessToken } from '#shared/tokens/verify-access-token.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { createTestTable } from '../support/service/dynamodb.ts';
import { testRuntime } from '../support/service/test-runtime.ts';

describe('verified-token cache of the introspection path', () => {
  it('remembers a verified signature but re-checks expiry on every use, and never trusts another string', async () => {
    let now = new Date();
    const runtime = testRuntime(await createTestTable('verified'), {}, () => now);
    const deps = oauthDeps(runtime);
    const iat = Math.floor(now.getTime() / 1000);
    const token = await runtime.keys.signJwt(
      'ES256',
      { typ: 'at+jwt' },
      {
        iss: runtime.config.issuer,
        sub: 'c',
        aud: 'https://api.example',
        client_id: 'c',
        scope: 'a',
        iat,
        nbf: iat,
        exp: iat + 60,
        jti: 'j1',
      },
    );
    const verified = await verifyIssuedToken(token, deps);
    expect(verified.claims.jti).toBe('j1');
    expect(verified.ref).toEqual({
      jti: 'j1',
      clientId: 'c',
      verifier: `key:${JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid}`,
    });
    expect(deps.verifiedTokens.get((await import('node:crypto')).createHash('sha256').update(token).digest('base64url'))).toEqual(verified);

    const [h, p, s] = token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), scope: 'all' })).toString('base64url')}.${s}`;
    await expect(verifyIssuedToken(tampered, deps)).rejects.toBeInstanceOf(InvalidAccessToken);

    now = new Date((iat + 61) * 1000);
    await expect(verifyIssuedToken(token, deps)).rejects.toBeInstanceOf(InvalidAccessToken);
  });
});
