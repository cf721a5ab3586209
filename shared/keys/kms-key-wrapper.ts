import { DecryptCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { KeyWrapper, WrapContext } from './key-wrapper.ts';
import { translateKmsError } from './translate-kms-error.ts';

/**
 * KMS `Encrypt` / `Decrypt` under the stage's symmetric key, with the purpose as encryption context
 * (AWS KMS Developer Guide, "Encryption context": it must match exactly to decrypt, and it appears
 * in CloudTrail). `Decrypt` names the key too, so a ciphertext under any other key is refused.
 */
export function kmsKeyWrapper(kms: () => KMSClient, keyId: string): KeyWrapper {
  return {
    kind: 'kms',
    async wrap(plaintext: Uint8Array, context: WrapContext) {
      try {
        const out = await kms().send(new EncryptCommand({ KeyId: keyId, Plaintext: plaintext, EncryptionContext: { ...context } }));
        if (!out.CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
        return Buffer.from(out.CiphertextBlob).toString('base64url');
      } catch (err) {
        return translateKmsError(err, 'Encrypt');
      }
    },
    async unwrap(wrapped: string, context: WrapContext) {
      return kmsDecrypt(kms(), keyId, Buffer.from(wrapped, 'base64url'), context);
    },
  };
}

/** One KMS `Decrypt`; also opens `PrivateKeyCiphertextBlob` from GenerateDataKeyPairWithoutPlaintext. */
export async function kmsDecrypt(kms: KMSClient, keyId: string, ciphertext: Uint8Array, context: WrapContext): Promise<Buffer> {
  try {
    const out = await kms.send(new DecryptCommand({ KeyId: keyId, CiphertextBlob: ciphertext, EncryptionContext: { ...context } }));
    if (!out.Plaintext) throw new Error('KMS Decrypt returned no plaintext');
    return Buffer.from(out.Plaintext);
  } catch (err) {
    return translateKmsError(err, 'Decrypt');
  }
}
