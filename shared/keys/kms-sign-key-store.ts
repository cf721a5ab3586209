import { createHash } from 'node:crypto';
import { type KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { derToJose } from '../crypto/der-to-jose.ts';
import { createJwsEncoder } from '../crypto/jws.ts';
import { internalError, notImplemented } from '../errors.ts';
import type { CacheCounter } from '../observability/service-metrics.ts';
import { createKeyCache } from './key-cache.ts';
import type { KeyStore } from './key-store.ts';
import { type KmsSigningKeyRegistration, registerKmsSigningKey } from './register-kms-signing-key.ts';
import type { SigningKeysRepository } from './signing-keys-repository.ts';
import { translateKmsError } from './translate-kms-error.ts';

export interface KmsSignKeyStoreOptions {
  kms: () => KMSClient;
  /** The asymmetric ECC_NIST_P256 SIGN_VERIFY key (KMS_SIGNING_KEY_ID). */
  keyId: string;
  repo: SigningKeysRepository;
  now: () => Date;
  cacheTtlMs: number;
  retireAfterSeconds: number;
  /** Counts the key cache's lookups (shared/observability/service-metrics.ts). */
  countLookup?: CacheCounter;
}

/**
 * `kms-sign` mode: the private key never leaves KMS. Each token costs one KMS `Sign` of the
 * SHA-256 digest of the signing input (MessageType DIGEST, so KMS's 4 KB RAW limit never applies);
 * the DER signature becomes JOSE r || s (RFC 7518 §3.4). A signer registers the KMS key's public
 * half in the table once per container (`GetPublicKey` + one Query), before its first signature;
 * verifiers and the JWKS read the table like in the other modes, so they need no KMS access.
 * ES256 only: this mode has exactly one key (docs/keys.md).
 */
export function kmsSignKeyStore(opts: KmsSignKeyStoreOptions): KeyStore {
  const { kms, keyId, repo, now } = opts;
  const encoder = createJwsEncoder();
  const cache = createKeyCache({ repo, now, cacheTtlMs: opts.cacheTtlMs, ...(opts.countLookup ? { countLookup: opts.countLookup } : {}) });
  let registered: Promise<KmsSigningKeyRegistration> | undefined;

  const register = (): Promise<KmsSigningKeyRegistration> =>
    (registered ??= registerKmsSigningKey({ kms: kms(), keyId, repo, now, retireAfterSeconds: opts.retireAfterSeconds }).catch(
      (err: unknown) => {
        registered = undefined; // retry on the next call rather than caching a failure
        throw err;
      },
    ));

  return {
    publishedKeys: cache.publishedKeys,
    publicKey: cache.publicKey,
    lastKnownPublicKey: cache.lastKnownPublicKey,
    async signJwt(alg, header, payload) {
      if (alg !== 'ES256')
        throw notImplemented(`${alg} signing is not available when KMS holds the signing key (kms-sign mode signs ES256 only).`);
      const { kid } = (await register()).entry;
      const input = encoder.signingInput(alg, kid, header, payload);
      const digest = createHash('sha256').update(input, 'latin1').digest();
      let signature: Uint8Array | undefined;
      try {
        ({ Signature: signature } = await kms().send(
          new SignCommand({ KeyId: keyId, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' }),
        ));
      } catch (err) {
        return translateKmsError(err, 'Sign');
      }
      if (!signature) throw internalError({ detail: 'KMS Sign returned no signature' });
      return `${input}.${derToJose(signature, 32).toString('base64url')}`;
    },
  };
}
