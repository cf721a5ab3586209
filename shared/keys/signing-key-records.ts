import type { JWK } from 'jose';
import type { AsymmetricAlg, KeyStatus } from './key-store.ts';

/** The stored shapes of signing keys and their state items (signing-keys-repository.ts says how they are kept). */
export interface SigningKeyRecord {
  kid: string;
  alg: AsymmetricAlg;
  jwk: JWK;
  /** Absent for a kms-sign key (the private key is in KMS). */
  wrappedPrivateKey?: string | undefined;
  wrappedBy: 'kms' | 'local' | 'kms-sign';
  /** kms-sign: the asymmetric KMS key that signs with this key. */
  kmsKeyId?: string | undefined;
  status: KeyStatus;
  createdAt: string;
  activatedAt?: string | undefined;
  retiredAt?: string | undefined;
  ttl?: number | undefined;
}

export interface PreviousKeyRef {
  kid: string;
  retiredAt: string;
  /** Epoch seconds after which the key is no longer published. */
  expiresAt: number;
}

export interface KeyStateRecord {
  alg: AsymmetricAlg;
  currentKid: string;
  nextKid: string | undefined;
  previous: PreviousKeyRef[];
  version: number;
}

export interface KeyPartition {
  states: Map<AsymmetricAlg, KeyStateRecord>;
  keys: Map<string, SigningKeyRecord>;
  /** Algorithms whose state item predates embedded keys (schema 1): `embedKeysInStates` rewrites them. */
  legacyStates: Set<AsymmetricAlg>;
}
