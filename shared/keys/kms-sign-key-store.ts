import { createHash, createPublicKey } from 'node:crypto';
import { GetPublicKeyCommand, SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import { internalError, notImplemented } from '../errors.ts';
import { derToJose } from './der-to-jose.ts';
import { jwkOfSpki, kidOf, publicJwk } from './jwk.ts';
import { createJwsEncoder } from './jws.ts';
import type { KeyStore, PublicKeyEntry } from './key-store.ts';
import { translateKmsError } from './translate-kms-error.ts';

/**
 * `kms-sign` mode: the private key never leaves KMS (an asymmetric ECC_NIST_P256 SIGN_VERIFY key,
 * KMS_SIGNING_KEY_ID). Each token costs one KMS `Sign` of the SHA-256 digest of the signing input
 * (MessageType DIGEST, so the 4 KB RAW limit never applies); the DER signature is converted to
 * JOSE r || s (RFC 7518 §3.4). The public key is fetched once (`GetPublicKey`) and cached.
 * ES256 only; this mode has exactly one key, so rotation means a new KMS key (docs/keys.md).
 */
export function kmsSignKeyStore(kms: () => KMSClient, keyId: string): KeyStore {
  const encoder = createJwsEncoder();
  let entry: Promise<PublicKeyEntry> | undefined;

  const load = (): Promise<PublicKeyEntry> =>
    (entry ??= fetchPublicKey(kms(), keyId).catch((err: unknown) => {
      entry = undefined; // retry on the next call rather than caching a failure
      throw err;
    }));

  return {
    async publishedKeys() {
      return [await load()];
    },
    async publicKey(kid) {
      const e = await load();
      return e.kid === kid ? e : undefined;
    },
    async signJwt(alg, header, payload) {
      if (alg !== 'ES256') throw notImplemented(`${alg} signing is not available when KMS holds the signing key (kms-sign mode signs ES256 only).`);
      const { kid } = await load();
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

async function fetchPublicKey(kms: KMSClient, keyId: string): Promise<PublicKeyEntry> {
  let out;
  try {
    out = await kms.send(new GetPublicKeyCommand({ KeyId: keyId }));
  } catch (err) {
    return translateKmsError(err, 'GetPublicKey');
  }
  if (!out.PublicKey || out.KeySpec !== 'ECC_NIST_P256' || out.KeyUsage !== 'SIGN_VERIFY') {
    throw internalError({ detail: `KMS_SIGNING_KEY_ID must be an ECC_NIST_P256 SIGN_VERIFY key (got ${out.KeySpec}/${out.KeyUsage})` });
  }
  const raw = jwkOfSpki(out.PublicKey);
  const kid = await kidOf(raw);
  return {
    kid,
    alg: 'ES256',
    status: 'current',
    jwk: publicJwk(raw, kid, 'ES256'),
    key: createPublicKey({ key: Buffer.from(out.PublicKey), format: 'der', type: 'spki' }),
  };
}
