import { createCipheriv, createDecipheriv, createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  DecryptCommand,
  type DecryptCommandInput,
  EncryptCommand,
  type EncryptCommandInput,
  GenerateDataKeyPairWithoutPlaintextCommand,
  type GenerateDataKeyPairWithoutPlaintextCommandInput,
  KMSClient,
} from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';

/** The key id the bench's envelope-mode runtimes are configured with (never a real key). */
export const FAKE_KMS_KEY_ARN = 'arn:aws:kms:us-east-1:111122223333:key/00000000-0000-4000-8000-00000000bench';

/**
 * KMS for envelope mode without AWS: `aws-sdk-client-mock` on the KMSClient class (every client
 * the process builds, including the one the runtime makes for itself) with real cryptography
 * behind the three commands envelope mode uses (docs/design.md §3.9: mocks only where no real thing
 * exists, real crypto behind them):
 *
 * - `Encrypt` / `Decrypt`: AES-256-GCM under a fixed bench key, the encryption context bound as
 *   additional data (as KMS binds it), the key id checked;
 * - `GenerateDataKeyPairWithoutPlaintext`: a real P-256 / RSA-2048 pair from node:crypto, the public
 *   half as SPKI DER and the private half as a `Decrypt`-able ciphertext of its PKCS #8 DER.
 *
 * The bench key is derived from a fixed label, so a fresh process (the cold-start probe) can open
 * what another wrapped: like one KMS key shared by every Lambda container. `calls()` counts the
 * commands actually sent.
 */
/** The fake KMS key's cryptography, shared by the SDK mock (installFakeKms) and the HTTP stand-in (kms-stand-in.ts). */
export function fakeKmsCrypto() {
  const master = createHash('sha256').update('identity-service bench fake KMS key').digest();
  const aad = (keyId: string | undefined, ctx: Record<string, string> | undefined) =>
    Buffer.from(JSON.stringify([keyId ?? '', Object.entries(ctx ?? {}).sort(([a], [b]) => a.localeCompare(b))]));
  const seal = (plaintext: Uint8Array, ctx: Record<string, string> | undefined) => {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', master, iv);
    c.setAAD(aad(FAKE_KMS_KEY_ARN, ctx));
    const body = Buffer.concat([c.update(plaintext), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), body]);
  };
  const open = (blob: Uint8Array, keyId: string | undefined, ctx: Record<string, string> | undefined) => {
    if (keyId !== undefined && keyId !== FAKE_KMS_KEY_ARN)
      throw Object.assign(new Error('IncorrectKeyException'), { name: 'IncorrectKeyException' });
    const b = Buffer.from(blob);
    const d = createDecipheriv('aes-256-gcm', master, b.subarray(0, 12));
    d.setAAD(aad(FAKE_KMS_KEY_ARN, ctx));
    d.setAuthTag(b.subarray(12, 28));
    try {
      return Buffer.concat([d.update(b.subarray(28)), d.final()]);
    } catch {
      throw Object.assign(new Error('InvalidCiphertextException'), { name: 'InvalidCiphertextException' });
    }
  };
  const generatePair = (spec: string | undefined, ctx: Record<string, string> | undefined) => {
    const { publicKey, privateKey } =
      spec === 'ECC_NIST_P256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
    return {
      PublicKey: publicKey.export({ format: 'der', type: 'spki' }),
      PrivateKeyCiphertextBlob: seal(privateKey.export({ format: 'der', type: 'pkcs8' }), ctx),
    };
  };
  return { seal, open, generatePair };
}

export function installFakeKms(): { calls(): Record<string, number>; total(): number; restore(): void } {
  const { seal, open, generatePair } = fakeKmsCrypto();
  const counts: Record<string, number> = {};
  const count = (name: string) => {
    counts[name] = (counts[name] ?? 0) + 1;
  };
  const mock = mockClient(KMSClient);
  mock.on(EncryptCommand).callsFake((input: EncryptCommandInput) => {
    count('Encrypt');
    return { KeyId: FAKE_KMS_KEY_ARN, CiphertextBlob: seal(input.Plaintext!, input.EncryptionContext) };
  });
  mock.on(DecryptCommand).callsFake((input: DecryptCommandInput) => {
    count('Decrypt');
    return { KeyId: FAKE_KMS_KEY_ARN, Plaintext: open(input.CiphertextBlob!, input.KeyId, input.EncryptionContext) };
  });
  mock.on(GenerateDataKeyPairWithoutPlaintextCommand).callsFake((input: GenerateDataKeyPairWithoutPlaintextCommandInput) => {
    count('GenerateDataKeyPairWithoutPlaintext');
    return { KeyId: FAKE_KMS_KEY_ARN, KeyPairSpec: input.KeyPairSpec, ...generatePair(input.KeyPairSpec, input.EncryptionContext) };
  });
  return {
    calls: () => ({ ...counts }),
    total: () => Object.values(counts).reduce((a, b) => a + b, 0),
    restore: () => mock.restore(),
  };
}
