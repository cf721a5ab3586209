import { assertKeyFitsAlg, jwkOfSpki, kidOf, publicJwk } from './jwk.ts';
import type { KeyPairSource } from './key-pair-source.ts';
import type { AsymmetricAlg, KeyStatus } from './key-store.ts';
import type { SigningKeyRecord } from './signing-keys-repository.ts';

/** A fresh key pair as a table record: kid = RFC 7638 thumbprint, public JWK, wrapped private key. */
export async function newSigningKey(
  source: KeyPairSource,
  alg: AsymmetricAlg,
  status: 'current' | 'next',
  at: Date,
): Promise<SigningKeyRecord> {
  const pair = await source.generate(alg);
  const raw = jwkOfSpki(pair.spki);
  assertKeyFitsAlg(raw, alg);
  const kid = await kidOf(raw);
  const iso = at.toISOString();
  return {
    kid,
    alg,
    jwk: publicJwk(raw, kid, alg),
    wrappedPrivateKey: pair.wrappedPrivateKey,
    wrappedBy: pair.wrappedBy,
    status: status satisfies KeyStatus,
    createdAt: iso,
    activatedAt: status === 'current' ? iso : undefined,
  };
}
