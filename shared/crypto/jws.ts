import { type KeyObject, sign } from 'node:crypto';

/** The asymmetric JWS algorithms our signing keys use (RFC 7518 §3.4, §3.3). */
export type AsymmetricAlg = 'ES256' | 'RS256';

/** Encoded headers are few (one per alg, kid and typ); the bound only guards against odd callers. */
const MAX_CACHED_HEADERS = 256;

const b64json = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Compact JWS serialization (RFC 7515 §7.1): BASE64URL(header) '.' BASE64URL(payload) '.'
 * BASE64URL(signature). The protected header always carries our `alg` and `kid` (RFC 7515 §4.1.1,
 * §4.1.4), whatever the caller put there; its encoding is cached per (alg, kid, header).
 */
export function createJwsEncoder() {
  const headers = new Map<string, string>();
  const encodedHeader = (alg: AsymmetricAlg, kid: string, header: Record<string, unknown>): string => {
    const cacheKey = `${alg}\u0000${kid}\u0000${JSON.stringify(header)}`;
    let h = headers.get(cacheKey);
    if (h === undefined) {
      const full: Record<string, unknown> = { alg, ...header, kid };
      full.alg = alg;
      h = b64json(full);
      if (headers.size >= MAX_CACHED_HEADERS) headers.clear();
      headers.set(cacheKey, h);
    }
    return h;
  };
  return {
    /** `header.payload`, the JWS Signing Input (RFC 7515 §5.1 step 5). */
    signingInput(alg: AsymmetricAlg, kid: string, header: Record<string, unknown>, payload: Record<string, unknown>): string {
      return `${encodedHeader(alg, kid, header)}.${b64json(payload)}`;
    },
  };
}

/**
 * Signs in process with node:crypto, synchronously: ES256 = ECDSA P-256 SHA-256 with the signature
 * as r || s (RFC 7518 §3.4, `ieee-p1363`); RS256 = RSASSA-PKCS1-v1_5 SHA-256 (RFC 7518 §3.3).
 * This is the hot path of the token endpoint (jose's SignJWT goes through async WebCrypto).
 */
export function signInput(alg: AsymmetricAlg, key: KeyObject, input: string): string {
  const data = Buffer.from(input, 'latin1');
  const sig = alg === 'ES256' ? sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }) : sign('sha256', data, key);
  return `${input}.${sig.toString('base64url')}`;
}
