import { createServer, type Server } from 'node:http';
import { FAKE_KMS_KEY_ARN, fakeKmsCrypto } from './fake-kms.ts';

/**
 * The fake KMS over HTTP, for processes the SDK mock cannot reach: a bundled handler carries its
 * own copy of the AWS SDK, so the cold-start probe points it here with `AWS_ENDPOINT_URL_KMS`
 * (the SDK's per-service endpoint setting). It speaks KMS's JSON protocol (`X-Amz-Target:
 * TrentService.<Operation>`, base64 blobs) for the three operations envelope mode uses, with the
 * same key and cryptography as the mock, so it opens what the in-process stack wrapped. The
 * request signature is not checked (there are no credentials to check it against).
 */
export async function startKmsStandIn(): Promise<{ url: string; calls: () => Record<string, number>; close: () => Promise<void> }> {
  const { seal, open, generatePair } = fakeKmsCrypto();
  const counts: Record<string, number> = {};
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const op = String(req.headers['x-amz-target'] ?? '').replace('TrentService.', '');
      counts[op] = (counts[op] ?? 0) + 1;
      const input = JSON.parse(Buffer.concat(chunks).toString() || '{}') as {
        CiphertextBlob?: string;
        Plaintext?: string;
        KeyId?: string;
        EncryptionContext?: Record<string, string>;
        KeyPairSpec?: string;
      };
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(body));
      };
      try {
        if (op === 'Decrypt')
          return reply(200, {
            KeyId: FAKE_KMS_KEY_ARN,
            Plaintext: b64(open(Buffer.from(input.CiphertextBlob!, 'base64'), input.KeyId, input.EncryptionContext)),
          });
        if (op === 'Encrypt')
          return reply(200, {
            KeyId: FAKE_KMS_KEY_ARN,
            CiphertextBlob: b64(seal(Buffer.from(input.Plaintext!, 'base64'), input.EncryptionContext)),
          });
        if (op === 'GenerateDataKeyPairWithoutPlaintext') {
          const pair = generatePair(input.KeyPairSpec, input.EncryptionContext);
          return reply(200, {
            KeyId: FAKE_KMS_KEY_ARN,
            KeyPairSpec: input.KeyPairSpec,
            PublicKey: b64(pair.PublicKey),
            PrivateKeyCiphertextBlob: b64(pair.PrivateKeyCiphertextBlob),
          });
        }
        return reply(400, { __type: 'UnsupportedOperationException', message: `${op} is not part of the bench's KMS stand-in` });
      } catch (err) {
        return reply(400, { __type: (err as Error).name, message: (err as Error).message });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => ({ ...counts }),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
