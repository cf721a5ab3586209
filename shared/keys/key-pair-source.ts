import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { GenerateDataKeyPairWithoutPlaintextCommand, type KMSClient } from '@aws-sdk/client-kms';
import { internalError } from '../errors.ts';
import { ALG_KEYS } from './jwk.ts';
import type { AsymmetricAlg } from './key-store.ts';
import { contexts, type KeyWrapper } from './key-wrapper.ts';
import { kmsDecrypt } from './kms-key-wrapper.ts';
import { translateKmsError } from './translate-kms-error.ts';

/** A new signing key pair: the public half in clear, the private half only wrapped. */
export interface GeneratedKeyPair {
  /** DER SubjectPublicKeyInfo. */
  spki: Buffer;
  /** base64url; PKCS #8 DER once unwrapped. */
  wrappedPrivateKey: string;
  wrappedBy: 'kms' | 'local';
}

/** Makes signing key pairs and opens their private halves (`envelope` and `local` modes). */
export interface KeyPairSource {
  readonly kind: 'kms' | 'local';
  generate(alg: AsymmetricAlg): Promise<GeneratedKeyPair>;
  unwrapPrivateKey(wrapped: string, alg: AsymmetricAlg): Promise<KeyObject>;
}

function toPrivateKey(pkcs8: Buffer): KeyObject {
  try {
    return createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  } finally {
    pkcs8.fill(0); // the KeyObject holds the key now; do not leave a second copy in a Buffer
  }
}

/**
 * `envelope` mode: KMS `GenerateDataKeyPairWithoutPlaintext` makes the pair and returns the private
 * key already wrapped under the stage key, so no plaintext private key exists at creation; a signer
 * later opens it with one `Decrypt` (KMS returns PKCS #8 DER) and caches the KeyObject.
 */
export function kmsKeyPairSource(kms: () => KMSClient, keyId: string): KeyPairSource {
  return {
    kind: 'kms',
    async generate(alg) {
      let out;
      try {
        out = await kms().send(
          new GenerateDataKeyPairWithoutPlaintextCommand({
            KeyId: keyId,
            KeyPairSpec: ALG_KEYS[alg].kmsKeyPairSpec,
            EncryptionContext: { ...contexts.signingKey(alg) },
          }),
        );
      } catch (err) {
        return translateKmsError(err, 'GenerateDataKeyPairWithoutPlaintext');
      }
      if (!out.PublicKey || !out.PrivateKeyCiphertextBlob) throw internalError({ detail: 'KMS returned an incomplete key pair' });
      return {
        spki: Buffer.from(out.PublicKey),
        wrappedPrivateKey: Buffer.from(out.PrivateKeyCiphertextBlob).toString('base64url'),
        wrappedBy: 'kms',
      };
    },
    async unwrapPrivateKey(wrapped, alg) {
      return toPrivateKey(await kmsDecrypt(kms(), keyId, Buffer.from(wrapped, 'base64url'), contexts.signingKey(alg)));
    },
  };
}

/** `local` mode: node:crypto makes the pair; the PKCS #8 private key is wrapped with the master key. */
export function localKeyPairSource(wrapper: KeyWrapper): KeyPairSource {
  return {
    kind: 'local',
    async generate(alg) {
      const { publicKey, privateKey } =
        alg === 'ES256'
          ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
          : generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
      const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
      try {
        return {
          spki: publicKey.export({ format: 'der', type: 'spki' }),
          wrappedPrivateKey: await wrapper.wrap(pkcs8, contexts.signingKey(alg)),
          wrappedBy: 'local',
        };
      } finally {
        pkcs8.fill(0);
      }
    },
    async unwrapPrivateKey(wrapped, alg) {
      return toPrivateKey(await wrapper.unwrap(wrapped, contexts.signingKey(alg)));
    },
  };
}
