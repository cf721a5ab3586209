import type { KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
/** Algorithms of keys held by the key store (HS256 uses a Resource's own secret, not a key here). */
import type { AsymmetricAlg } from '../crypto/jws.ts';
import type { Lookahead } from '../ttl-cache.ts';

export type { AsymmetricAlg };

/** Where a key is in its life (docs/design.md §4): published before it signs, kept after it stops. */
export type KeyStatus = 'next' | 'current' | 'previous';

export interface PublicKeyEntry {
  kid: string;
  alg: AsymmetricAlg;
  status: KeyStatus;
  /** Public key only; never a private member. */
  jwk: JWK;
  key: KeyObject;
}

/**
 * Signing keys of the service. Private keys are never stored in clear: `envelope` mode keeps them
 * wrapped by KMS (one Decrypt per cold start), `kms-sign` leaves them in KMS, `local` wraps them
 * with an AES-256-GCM master key file.
 */
export interface KeyStore {
  /** Public keys of every published key (next, current, previous), for `/.well-known/jwks.json`. */
  publishedKeys(): Promise<PublicKeyEntry[]>;
  /** The published key with this kid, or undefined (refreshes from the table at most every few seconds on a miss). */
  publicKey(kid: string): Promise<PublicKeyEntry | undefined>;
  /**
   * The published key with this kid as of the last read, however old, without any I/O. Only for
   * health, which must answer `degraded` while the table stalls (shared/health/last-known-keys.ts).
   */
  lastKnownPublicKey(kid: string): PublicKeyEntry | undefined;
  /** Compact JWS of `payload` signed with the current key of `alg`; sets `alg` and `kid` in the header. */
  signJwt(alg: AsymmetricAlg, header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string>;
  /** Present where signing reads the table (envelope, local); kms-sign signs through KMS and has none. */
  readonly stateFeed?: KeyStateFeed;
}

/** Lets the token path fold this store's table read into its own BatchGetItem (docs/keys.md). */
export interface KeyStateFeed {
  /** Keys of the state items to read, or [] while this container's key snapshot is fresh (no read needed); `readAhead`: ttl-cache.ts. */
  wanted(options?: Lookahead): { PK: string; SK: string }[];
  /** The caller reads the `wanted` keys now: other requests keep the soon-stale snapshot meanwhile (ttl-cache.ts `Lookahead`). */
  rereading(): void;
  /** The items that read returned for `wanted()` keys (a missing item = no keys for that alg yet). Installs them as the snapshot when every present one embeds its keys; otherwise does nothing (the store then reads for itself). `readAt`: when the read started, so a slow read is not trusted past the TTL counted from then. */
  offer(items: readonly Record<string, unknown>[], readAt?: Date): void;
}

/** The secret box port lives with the other ports (docs/architecture.md); re-exported for keys/ callers. */
export type { SecretBox } from '../ports/secret-box.ts';
