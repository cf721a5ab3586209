import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KeyStore, PublicKeyEntry } from '#shared/keys/key-store.ts';
import { InvalidAccessToken, verifyAccessToken } from '#shared/tokens/verify-access-token.ts';
import { createTestTable } from '../support/service/dynamodb.ts';
import { testRuntime } from '../support/service/test-runtime.ts';

/**
 * The synchronous verifier of our access tokens (shared/tokens/compact-jws.ts, verifyAccessToken)
 * that replaced jose's `jwtVerify` on the hot path: every forgery and every claims rule jose
 * enforced must still refuse the token. Keys are real P-256 and RSA pairs; the key store is the
 * port only (its lookup by kid), so a test can sign any header and payload it needs.
 */
const issuer = 'https://id.example';
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const entry = (kid: string, alg: 'ES256' | 'RS256', key: KeyObject): PublicKeyEntry => ({ kid, alg, status: 'current', jwk: {}, key });
const published = new Map([
  ['ec-1', entry('ec-1', 'ES256', ec.publicKey)],
  ['rsa-1', entry('rsa-1', 'RS256', rsa.publicKey)],
]);
const keys = { publicKey: async (kid: string) => published.get(kid) } as unknown as KeyStore;
const nowS = 1_900_000_000;
const deps = { keys, issuer, now: () => new Date(nowS * 1000) };

const b64 = (v: unknown) => (Buffer.isBuffer(v) ? v : Buffer.from(typeof v === 'string' ? v : JSON.stringify(v))).toString('base64url');
const claims = (over: Record<string, unknown> = {}) => ({
  iss: issuer,
  sub: 'client-1',
  aud: 'https://api.example/',
  client_id: 'client-1',
  jti: 'jti-1',
  iat: nowS - 10,
  nbf: nowS - 10,
  exp: nowS + 300,
  scope: 'read',
  ...over,
});
function jws(header: Record<string, unknown>, payload: unknown, how: 'es256' | 'rs256' | 'der' = 'es256'): string {
  const input = `${b64(header)}.${b64(payload)}`;
  const sig =
    how === 'rs256'
      ? sign('sha256', Buffer.from(input), rsa.privateKey)
      : sign('sha256', Buffer.from(input), { key: ec.privateKey, dsaEncoding: how === 'der' ? 'der' : 'ieee-p1363' });
  return `${input}.${sig.toString('base64url')}`;
}
const ES = { alg: 'ES256', typ: 'at+jwt', kid: 'ec-1' };
const refused = (token: string, audience?: string) =>
  expect(verifyAccessToken(token, deps, audience)).rejects.toBeInstanceOf(InvalidAccessToken);

describe('access token verifier', () => {
  it('verifies a token of the service keys (real key store) and returns its claims and header', async () => {
    const runtime = testRuntime(await createTestTable('verifier'));
    const iat = Math.floor(Date.now() / 1000);
    const real = { keys: runtime.keys, issuer: runtime.config.issuer, now: () => new Date() };
    const token = await runtime.keys.signJwt('ES256', { typ: 'at+jwt' }, { ...claims(), iss: real.issuer, iat, nbf: iat, exp: iat + 60 });
    const { claims: got, header } = await verifyAccessToken(token, real);
    expect(got).toMatchObject({ sub: 'client-1', client_id: 'client-1', jti: 'jti-1', scope: 'read' });
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: expect.any(String) });
  });

  it('accepts ES256 and RS256 with the key of that kid, and the typ spellings RFC 7515 §4.1.9 allows', async () => {
    await expect(verifyAccessToken(jws(ES, claims()), deps)).resolves.toMatchObject({ claims: { jti: 'jti-1' } });
    await expect(verifyAccessToken(jws({ ...ES, alg: 'RS256', kid: 'rsa-1' }, claims(), 'rs256'), deps)).resolves.toMatchObject({
      claims: { jti: 'jti-1' },
      header: { alg: 'RS256', kid: 'rsa-1' },
    });
    await expect(verifyAccessToken(jws({ ...ES, typ: 'application/at+jwt' }, claims()), deps)).resolves.toMatchObject({
      claims: { jti: 'jti-1' },
      header: { typ: 'application/at+jwt' },
    });
    await expect(verifyAccessToken(jws({ ...ES, typ: 'AT+JWT' }, claims()), deps)).resolves.toMatchObject({
      claims: { jti: 'jti-1' },
      header: { typ: 'AT+JWT' },
    });
    await expect(
      verifyAccessToken(jws(ES, claims({ aud: ['x', 'https://api.example/'] })), deps, 'https://api.example/'),
    ).resolves.toMatchObject({ claims: { aud: ['x', 'https://api.example/'] } });
  });

  it('refuses forged signatures and algorithms: tampered payload, alg none, HS256 with the public key, another key type, DER', async () => {
    const good = jws(ES, claims());
    const [h, , s] = good.split('.');
    await refused(`${h}.${b64(claims({ scope: 'admin' }))}.${s}`);
    await refused(`${b64({ ...ES, alg: 'none' })}.${b64(claims())}.`);
    await refused(`${b64({ ...ES, alg: 'none' })}.${b64(claims())}.${s}`);
    // Algorithm confusion: HMAC keyed with the public key's bytes.
    const { createHmac } = await import('node:crypto');
    const hsInput = `${b64({ ...ES, alg: 'HS256' })}.${b64(claims())}`;
    const pem = ec.publicKey.export({ type: 'spki', format: 'pem' });
    await refused(`${hsInput}.${createHmac('sha256', pem).update(hsInput).digest('base64url')}`);
    // ES256 header naming the RSA key, and an RSA signature under an EC kid.
    await refused(jws({ ...ES, kid: 'rsa-1' }, claims()));
    await refused(jws({ ...ES, alg: 'RS256' }, claims(), 'rs256'));
    await refused(jws(ES, claims(), 'der'));
    await refused(jws({ ...ES, kid: 'unknown' }, claims()));
    await refused(jws({ alg: 'ES256', typ: 'at+jwt' }, claims()));
  });

  it('refuses a malleated encoding: padding, characters outside base64url, a truncated or extended signature, four parts', async () => {
    const good = jws(ES, claims());
    const [h, p, s] = good.split('.') as [string, string, string];
    await refused(`${good}=`);
    await refused(`${h}.${p}.${s.slice(0, 20)}!${s.slice(20)}`);
    await refused(`${h}.${p}.${s.slice(0, -2)}`);
    await refused(`${h}.${p}.${s}AA`);
    await refused(`${h} .${p}.${s}`);
    await refused(`${good}.x`);
    await refused(`${h}.${p}`);
    await refused('');
  });

  it('refuses unknown critical extensions and a wrong typ', async () => {
    await refused(jws({ ...ES, crit: ['exp'], exp: 1 }, claims()));
    await refused(jws({ ...ES, typ: 'JWT' }, claims()));
    await refused(jws({ alg: 'ES256', kid: 'ec-1' }, claims()));
  });

  it('refuses what the claims rules of RFC 9068 §4 refuse: missing claims, iss, aud, expiry, nbf, a future iat, wrong types', async () => {
    for (const claim of ['sub', 'jti', 'exp', 'iat', 'client_id', 'iss']) {
      const { [claim]: _gone, ...rest } = claims() as Record<string, unknown>;
      await refused(jws(ES, rest));
    }
    await refused(jws(ES, claims({ iss: 'https://evil.example' })));
    await refused(jws(ES, claims()), 'https://other.example/');
    await refused(jws(ES, claims({ aud: ['a', 'b'] })), 'https://api.example/');
    await refused(jws(ES, claims({ exp: nowS })));
    await refused(jws(ES, claims({ nbf: nowS + 1 })));
    await refused(jws(ES, claims({ iat: nowS + 61 })));
    await expect(verifyAccessToken(jws(ES, claims({ iat: nowS + 60 })), deps)).resolves.toMatchObject({ claims: { iat: nowS + 60 } });
    await refused(jws(ES, claims({ exp: String(nowS + 300) })));
    await refused(jws(ES, claims({ nbf: 'soon' })));
    await refused(jws(ES, claims({ sub: 42 })));
    await refused(jws(ES, claims({ client_id: null })));
    await refused(jws(ES, [claims()]));
    await refused(jws(ES, 'not json'));
    // A payload that is not UTF-8 (RFC 7515 §5.2 step 3 via RFC 8259 §8.1).
    const bad = Buffer.concat([
      Buffer.from(JSON.stringify(claims()).slice(0, -1)),
      Buffer.from(',"x":"'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    await refused(jws(ES, bad));
  });
});
