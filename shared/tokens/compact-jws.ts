import { type KeyObject, verify } from 'node:crypto';

/**
 * A compact JWS (RFC 7515 §7.1) taken apart for verification by the service keys. The signature is
 * checked synchronously with node:crypto, the mirror of shared/crypto/jws.ts: jose's `jwtVerify` goes
 * through WebCrypto, whose `verify` is an asynchronous job on the libuv thread pool, and that hop
 * cost more than a third of an uncached introspection's CPU over HTTP (docs/benchmarks.md "Item 9,
 * round 3"). HS256 tokens of a Resource's own secret still go through jose
 * (shared/oauth/verify-resource-token.ts): they are rare, and never cached.
 */
export interface CompactJws {
  /** The protected header, parsed (a JSON object). */
  header: Record<string, unknown>;
  /** BASE64URL(header) '.' BASE64URL(payload): the JWS Signing Input (RFC 7515 §5.2 step 8). */
  signingInput: string;
  payloadPart: string;
  signature: Buffer;
}

/** The token is not a well-formed compact JWS. */
export class MalformedJws extends Error {}

/** RFC 7515 §2: base64url without padding; anything else (a `=`, a space, a `+`) is refused, not skipped. */
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** RFC 7515 §5.2 step 3 and RFC 8259 §8.1: the decoded header and payload must be valid UTF-8. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes one base64url part holding a JSON object (RFC 7515 §5.2 steps 2–4, RFC 7519 §7.2 step 10). */
export function jsonPart(part: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(Buffer.from(part, 'base64url')));
  } catch {
    throw new MalformedJws('a part is not base64url JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedJws('a part is not a JSON object');
  return value as Record<string, unknown>;
}

/** Splits and decodes a compact JWS (three base64url parts) and parses its protected header. */
export function parseCompactJws(token: string): CompactJws {
  const parts = token.split('.');
  if (parts.length !== 3) throw new MalformedJws('not three parts');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  if (!BASE64URL.test(headerPart) || !BASE64URL.test(payloadPart) || !BASE64URL.test(signaturePart)) {
    throw new MalformedJws('a part is not base64url');
  }
  return {
    header: jsonPart(headerPart),
    signingInput: `${headerPart}.${payloadPart}`,
    payloadPart,
    signature: Buffer.from(signaturePart, 'base64url'),
  };
}

/** ES256 signatures are r || s, 32 bytes each (RFC 7518 §3.4). */
const ES256_SIGNATURE_BYTES = 64;

/**
 * RFC 7515 §5.2 step 8 with the key `alg` belongs to: ES256 = ECDSA P-256 SHA-256 over the JOSE
 * `r || s` form (`ieee-p1363`, RFC 7518 §3.4), RS256 = RSASSA-PKCS1-v1_5 SHA-256 (RFC 7518 §3.3).
 */
export function hasValidSignature(jws: CompactJws, alg: 'ES256' | 'RS256', key: KeyObject): boolean {
  const data = Buffer.from(jws.signingInput, 'latin1');
  try {
    if (alg === 'ES256') {
      return jws.signature.length === ES256_SIGNATURE_BYTES && verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, jws.signature);
    }
    return verify('sha256', data, key, jws.signature);
  } catch {
    return false; // a key of another type than alg says: not a signature of ours
  }
}
