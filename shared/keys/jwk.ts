import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import type { AsymmetricAlg } from './key-store.ts';

/**
 * The members a published JWK may carry, by key type (RFC 7518 §6.2.1 for EC, §6.3.1 for RSA).
 * Public JWKs are built by picking these, never by deleting private members, so a private member
 * (`d`, `p`, `q`, `dp`, `dq`, `qi`, `k`) cannot reach the JWKS by accident.
 */
const PUBLIC_MEMBERS: Record<string, readonly string[]> = {
  EC: ['kty', 'crv', 'x', 'y'],
  RSA: ['kty', 'n', 'e'],
};

/** The key each JWS algorithm needs (RFC 7518 §3.3 RS256, §3.4 ES256) and KMS's name for it. */
export const ALG_KEYS: Record<AsymmetricAlg, { kty: 'EC' | 'RSA'; crv?: 'P-256'; kmsKeyPairSpec: 'ECC_NIST_P256' | 'RSA_2048' }> = {
  ES256: { kty: 'EC', crv: 'P-256', kmsKeyPairSpec: 'ECC_NIST_P256' },
  RS256: { kty: 'RSA', kmsKeyPairSpec: 'RSA_2048' },
};

export const ASYMMETRIC_ALGS: readonly AsymmetricAlg[] = ['ES256', 'RS256'];

export const isAsymmetricAlg = (s: unknown): s is AsymmetricAlg => s === 'ES256' || s === 'RS256';

/** The public JWK of a key as published (RFC 7517 §4): public members, `kid`, `alg`, `use: sig`. */
export function publicJwk(jwk: JWK, kid: string, alg: AsymmetricAlg): JWK {
  const members = PUBLIC_MEMBERS[jwk.kty ?? ''];
  if (!members) throw new Error(`Unsupported key type ${String(jwk.kty)}`);
  const out: Record<string, unknown> = {};
  for (const m of members) {
    const value = (jwk as Record<string, unknown>)[m];
    if (typeof value !== 'string') throw new Error(`Public key lacks the member ${m}`);
    out[m] = value;
  }
  return { ...out, kid, alg, use: 'sig' } as JWK;
}

/** Public members of a KeyObject (private or public) as a JWK. */
export function jwkOfKey(key: KeyObject): JWK {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return pub.export({ format: 'jwk' }) as JWK;
}

/** KMS returns public keys as DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7). */
export const jwkOfSpki = (spki: Uint8Array): JWK => jwkOfKey(createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' }));

/** RFC 7638 §3.2: the required members of each key type, in lexicographic order. */
const THUMBPRINT_MEMBERS: Record<string, readonly string[]> = { EC: ['crv', 'kty', 'x', 'y'], RSA: ['e', 'kty', 'n'] };

/**
 * kid = RFC 7638 thumbprint (SHA-256): stable, derived from the key itself, the same in every
 * container. Computed here rather than with jose: the token function would otherwise reach jose's
 * key modules at every cold start, and with them every part of those files its lazily loaded
 * token-exchange chunk uses (docs/benchmarks.md "Token function bundle, token exchange").
 */
export async function kidOf(jwk: JWK): Promise<string> {
  const members = THUMBPRINT_MEMBERS[String(jwk.kty)];
  const member = (m: string) => (jwk as Record<string, unknown>)[m];
  if (!members?.every((m) => typeof member(m) === 'string')) throw new Error(`No RFC 7638 thumbprint for this ${String(jwk.kty)} key`);
  // RFC 7638 §3.3: the members as JSON with no whitespace, in that order, hashed as UTF-8.
  const canonical = JSON.stringify(Object.fromEntries(members.map((m) => [m, member(m)])));
  return createHash('sha256').update(canonical).digest('base64url');
}

/** Refuses a key that does not fit the algorithm (RFC 7518 §3.3: RSA keys of 2048 bits or more). */
export function assertKeyFitsAlg(jwk: JWK, alg: AsymmetricAlg): void {
  const want = ALG_KEYS[alg];
  const ok =
    want.kty === 'EC'
      ? jwk.kty === 'EC' && jwk.crv === want.crv
      : jwk.kty === 'RSA' && typeof jwk.n === 'string' && Buffer.from(jwk.n, 'base64url').length * 8 >= 2048;
  if (!ok) throw new Error(`The key (${String(jwk.kty)} ${String(jwk.crv ?? '')}) does not fit ${alg}`);
}

/** True when two JWKs hold the same public key. */
export function samePublicKey(a: JWK, b: JWK): boolean {
  const members = PUBLIC_MEMBERS[a.kty ?? ''] ?? [];
  return a.kty === b.kty && members.every((m) => (a as Record<string, unknown>)[m] === (b as Record<string, unknown>)[m]);
}
