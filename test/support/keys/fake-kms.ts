import { createCipheriv, createDecipheriv, generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  DecryptCommand,
  EncryptCommand,
  GenerateDataKeyPairWithoutPlaintextCommand,
  GetPublicKeyCommand,
  KMSClient,
  SignCommand,
} from '@aws-sdk/client-kms';
import { type AwsClientStub, mockClient } from 'aws-sdk-client-mock';
import { signDigestP256 } from './p256.ts';

export const KMS_KEY_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/0b6a1c9e-1111-4a4a-9c9c-000000000001';
export const KMS_SIGNING_KEY_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/0b6a1c9e-2222-4a4a-9c9c-000000000002';
/** A second asymmetric key, for switching KMS_SIGNING_KEY_ID. */
export const KMS_SIGNING_KEY_ARN_2 = 'arn:aws:kms:eu-west-1:111122223333:key/0b6a1c9e-3333-4a4a-9c9c-000000000003';

/** An AWS-style service error (what the SDK throws: `name` is the exception type). */
export class KmsError extends Error {
  constructor(name: string, message = name) {
    super(message);
    this.name = name;
  }
}

const aad = (keyId: string, ctx: Record<string, string> | undefined) =>
  Buffer.from(JSON.stringify([keyId, Object.entries(ctx ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))]));

export interface FakeKms {
  client: KMSClient;
  mock: AwsClientStub<KMSClient>;
  /** The public half of the asymmetric signing key (for checks outside the service). */
  signingPublicKey: ReturnType<typeof generateKeyPairSync>['publicKey'];
}

/**
 * KMS behind aws-sdk-client-mock, doing the real cryptography (docs/design.md §3.9): the symmetric key
 * is an AES-256-GCM key only this fake holds, with the encryption context authenticated (a wrong
 * context or key fails like KMS does); GenerateDataKeyPairWithoutPlaintext really makes a pair;
 * Sign really signs the digest with an ECC_NIST_P256 key and returns DER.
 */
export function fakeKms(): FakeKms {
  const client = new KMSClient({ region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const mock = mockClient(client);
  const kek = randomBytes(32);
  const signingKeys = new Map(
    [KMS_SIGNING_KEY_ARN, KMS_SIGNING_KEY_ARN_2].map((arn) => [arn, generateKeyPairSync('ec', { namedCurve: 'P-256' })]),
  );
  const signingKey = (keyId: string | undefined) => {
    const pair = signingKeys.get(keyId ?? '');
    if (!pair) throw new KmsError('NotFoundException', `Key ${keyId} not found`);
    return pair;
  };

  const requireKey = (keyId: string | undefined, want: string) => {
    if (keyId !== want) throw new KmsError('NotFoundException', `Key ${keyId} not found`);
  };
  const seal = (plaintext: Uint8Array, ctx: Record<string, string> | undefined): Uint8Array => {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', kek, iv);
    c.setAAD(aad(KMS_KEY_ARN, ctx));
    const ct = Buffer.concat([c.update(plaintext), c.final()]);
    return new Uint8Array(Buffer.concat([iv, c.getAuthTag(), ct]));
  };
  const open = (blob: Uint8Array, ctx: Record<string, string> | undefined): Uint8Array => {
    const b = Buffer.from(blob);
    try {
      const d = createDecipheriv('aes-256-gcm', kek, b.subarray(0, 12));
      d.setAAD(aad(KMS_KEY_ARN, ctx));
      d.setAuthTag(b.subarray(12, 28));
      return new Uint8Array(Buffer.concat([d.update(b.subarray(28)), d.final()]));
    } catch {
      throw new KmsError('InvalidCiphertextException');
    }
  };

  mock.on(GenerateDataKeyPairWithoutPlaintextCommand).callsFake((input) => {
    requireKey(input.KeyId, KMS_KEY_ARN);
    const pair =
      input.KeyPairSpec === 'ECC_NIST_P256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : input.KeyPairSpec === 'RSA_2048'
          ? generateKeyPairSync('rsa', { modulusLength: 2048 })
          : undefined;
    if (!pair) throw new KmsError('ValidationException', `unsupported KeyPairSpec ${input.KeyPairSpec}`);
    return {
      KeyId: KMS_KEY_ARN,
      KeyPairSpec: input.KeyPairSpec,
      PublicKey: new Uint8Array(pair.publicKey.export({ format: 'der', type: 'spki' })),
      PrivateKeyCiphertextBlob: seal(pair.privateKey.export({ format: 'der', type: 'pkcs8' }), input.EncryptionContext),
    };
  });
  mock.on(DecryptCommand).callsFake((input) => {
    if (input.KeyId !== undefined && input.KeyId !== KMS_KEY_ARN) throw new KmsError('IncorrectKeyException');
    return { KeyId: KMS_KEY_ARN, Plaintext: open(input.CiphertextBlob, input.EncryptionContext), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
  });
  mock.on(EncryptCommand).callsFake((input) => {
    requireKey(input.KeyId, KMS_KEY_ARN);
    if (input.Plaintext.length > 4096) throw new KmsError('ValidationException');
    return { KeyId: KMS_KEY_ARN, CiphertextBlob: seal(input.Plaintext, input.EncryptionContext), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
  });
  mock.on(GetPublicKeyCommand).callsFake((input) => {
    const signing = signingKey(input.KeyId);
    return {
      KeyId: input.KeyId,
      KeySpec: 'ECC_NIST_P256',
      KeyUsage: 'SIGN_VERIFY',
      SigningAlgorithms: ['ECDSA_SHA_256'],
      PublicKey: new Uint8Array(signing.publicKey.export({ format: 'der', type: 'spki' })),
    };
  });
  mock.on(SignCommand).callsFake((input) => {
    const signing = signingKey(input.KeyId);
    if (input.SigningAlgorithm !== 'ECDSA_SHA_256') throw new KmsError('InvalidKeyUsageException');
    if (input.MessageType !== 'DIGEST' || input.Message.length !== 32)
      throw new KmsError('ValidationException', 'expected a SHA-256 digest');
    return {
      KeyId: input.KeyId,
      SigningAlgorithm: 'ECDSA_SHA_256',
      Signature: new Uint8Array(signDigestP256(signing.privateKey, input.Message)),
    };
  });

  return { client, mock, signingPublicKey: signingKey(KMS_SIGNING_KEY_ARN).publicKey };
}
