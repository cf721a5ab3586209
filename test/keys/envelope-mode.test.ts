import { createPrivateKey } from 'node:crypto';
import { DecryptCommand, EncryptCommand, GenerateDataKeyPairWithoutPlaintextCommand, type KMSClient } from '@aws-sdk/client-kms';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { decodeProtectedHeader } from 'jose';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '#shared/errors.ts';
import { createKeyServices } from '#shared/keys/create-key-services.ts';
import { createKeyBackend } from '#shared/keys/key-backend.ts';
import { keys as tableKeys } from '#shared/store/core/table-keys.ts';
import { type FakeKms, fakeKms, KMS_KEY_ARN, KmsError } from '../support/keys/fake-kms.ts';
import { claims, envelopeConfig, testClock, verifyWithJwks } from '../support/keys/key-test-env.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

describe('envelope mode (docs/design.md §4): KMS-wrapped key pairs in the table', () => {
  let table: TestTable;
  let kms: FakeKms;
  const clock = testClock();

  beforeAll(async () => {
    table = await createTestTable('keys-envelope');
  });
  beforeEach(() => {
    kms = fakeKms();
  });

  const services = (client: KMSClient = kms.client, t: TestTable = table) =>
    createKeyServices({ config: envelopeConfig(t), db: t.db, now: clock.now, kms: client });

  it('first ES256 token: GenerateDataKeyPairWithoutPlaintext (ECC_NIST_P256, the stage key, purpose context) for current and next, one Decrypt, and a token jose verifies', async () => {
    const t = await createTestTable('keys-env-first');
    const { keys } = services(kms.client, t);
    const token = await keys.signJwt('ES256', { typ: 'at+jwt' }, claims(clock.now()));

    const gens = kms.mock.commandCalls(GenerateDataKeyPairWithoutPlaintextCommand);
    expect(gens).toHaveLength(2);
    for (const call of gens) {
      expect(call.args[0].input).toEqual({
        KeyId: KMS_KEY_ARN,
        KeyPairSpec: 'ECC_NIST_P256',
        EncryptionContext: { purpose: 'signing-key', alg: 'ES256' },
      });
    }
    const decrypts = kms.mock.commandCalls(DecryptCommand);
    expect(decrypts).toHaveLength(1);
    expect(decrypts[0]!.args[0].input).toMatchObject({ KeyId: KMS_KEY_ARN, EncryptionContext: { purpose: 'signing-key', alg: 'ES256' } });

    const { payload, protectedHeader } = await verifyWithJwks(token, keys, clock.now(), ['ES256']);
    expect(payload.sub).toBe('client-1');
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const published = await keys.publishedKeys();
    expect(published.map((k) => k.status)).toEqual(['current', 'next']);
    expect(protectedHeader.kid).toBe(published[0]!.kid);
    // RFC 7515 §7.1 compact form; ES256 signature is r || s, 64 bytes (RFC 7518 §3.4).
    expect(Buffer.from(token.split('.')[2]!, 'base64url')).toHaveLength(64);
  });

  it('stores the wrapped private key (base64url KMS ciphertext), the public JWK, kid, alg, status and timestamps; never a private member in clear', async () => {
    const t = await createTestTable('keys-env-item');
    const { keys } = services(kms.client, t);
    await keys.signJwt('ES256', {}, claims(clock.now()));
    const [current] = await keys.publishedKeys();
    const { Item } = await t.db.send(new GetCommand({ TableName: t.tableName, Key: tableKeys.signingKey(current!.kid) }));
    expect(Item).toMatchObject({
      type: 'SigningKey',
      kid: current!.kid,
      alg: 'ES256',
      status: 'current',
      wrapped_by: 'kms',
      created_at: clock.now().toISOString(),
    });
    expect(Item!.wrapped_private_key).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(() => createPrivateKey({ key: Buffer.from(Item!.wrapped_private_key, 'base64url'), format: 'der', type: 'pkcs8' })).toThrow();
    expect(Object.keys(Item!.jwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    for (const m of PRIVATE_MEMBERS) expect(Item).not.toHaveProperty(m);
  });

  it('once warm, signing makes zero KMS calls; a cold start on the same table makes exactly one Decrypt and no GenerateDataKeyPair', async () => {
    const t = await createTestTable('keys-env-warm');
    const warm = services(kms.client, t);
    await warm.keys.signJwt('ES256', { typ: 'at+jwt' }, claims(clock.now()));
    const after1 = kms.mock.calls().length;
    const tokens = [];
    for (let i = 0; i < 200; i++) tokens.push(await warm.keys.signJwt('ES256', { typ: 'at+jwt' }, claims(clock.now())));
    expect(kms.mock.calls().length).toBe(after1);
    await verifyWithJwks(tokens[199]!, warm.keys, clock.now());

    // A new container (new key services, same KMS key and table).
    const second = services(kms.client, t);
    kms.mock.resetHistory();
    for (let i = 0; i < 50; i++) await second.keys.signJwt('ES256', {}, claims(clock.now()));
    expect(kms.mock.commandCalls(DecryptCommand)).toHaveLength(1);
    expect(kms.mock.commandCalls(GenerateDataKeyPairWithoutPlaintextCommand)).toHaveLength(0);
    expect(kms.mock.calls()).toHaveLength(1);
  });

  it('RS256 keys are RSA_2048 data key pairs and tokens verify as RS256 (RFC 7518 §3.3)', async () => {
    const t = await createTestTable('keys-env-rsa');
    const { keys } = services(kms.client, t);
    const token = await keys.signJwt('RS256', { typ: 'at+jwt' }, claims(clock.now()));
    expect(kms.mock.commandCalls(GenerateDataKeyPairWithoutPlaintextCommand).map((c) => c.args[0].input.KeyPairSpec)).toEqual([
      'RSA_2048',
      'RSA_2048',
    ]);
    const { protectedHeader } = await verifyWithJwks(token, keys, clock.now(), ['RS256']);
    expect(protectedHeader.alg).toBe('RS256');
    const rsa = (await keys.publishedKeys()).find((k) => k.kid === protectedHeader.kid)!;
    expect(Object.keys(rsa.jwk).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
  });

  it('the header always carries our alg and kid, whatever the caller passes (RFC 7515 §4.1.1, §4.1.4)', async () => {
    const { keys } = services();
    const token = await keys.signJwt('ES256', { alg: 'none', kid: 'evil', typ: 'at+jwt' }, claims(clock.now()));
    const header = decodeProtectedHeader(token);
    expect(header.alg).toBe('ES256');
    expect(header.kid).not.toBe('evil');
    expect(header.typ).toBe('at+jwt');
  });

  it('race: two containers signing the first token at once end up with one current key (docs/design.md §3.7)', async () => {
    const t = await createTestTable('keys-env-race');
    const a = services(kms.client, t);
    const b = services(kms.client, t);
    const [ta, tb] = await Promise.all([
      a.keys.signJwt('ES256', {}, claims(clock.now())),
      b.keys.signJwt('ES256', {}, claims(clock.now())),
    ]);
    const kidA = decodeProtectedHeader(ta).kid;
    expect(decodeProtectedHeader(tb).kid).toBe(kidA);
    const { Items } = await t.db.send(
      new QueryCommand({
        TableName: t.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': 'SIGNING_KEYS' },
      }),
    );
    const states = Items!.filter((i) => i.type === 'SigningKeyState');
    expect(states).toHaveLength(1);
    expect(states[0]!.current_kid).toBe(kidA);
    expect(Items!.filter((i) => i.type === 'SigningKey' && i.status === 'current')).toHaveLength(1);
    await verifyWithJwks(tb, a.keys, clock.now());
  });

  it('docs/design.md §3.8 fail closed: KMS throttling on the first Decrypt is a 503, not a token', async () => {
    const t = await createTestTable('keys-env-throttle');
    await services(kms.client, t).keys.signJwt('ES256', {}, claims(clock.now()));
    const busy = fakeKms();
    busy.mock.on(DecryptCommand).rejects(new KmsError('ThrottlingException'));
    const err = await services(busy.client, t)
      .keys.signJwt('ES256', {}, claims(clock.now()))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(503);
  });

  it('a key pair wrapped under another KMS key does not open (500, never a token)', async () => {
    const t = await createTestTable('keys-env-foreign');
    await services(kms.client, t).keys.signJwt('ES256', {}, claims(clock.now()));
    const other = fakeKms(); // same key ARN, different key material: InvalidCiphertextException
    const err = await services(other.client, t)
      .keys.signJwt('ES256', {}, claims(clock.now()))
      .catch((e: unknown) => e);
    expect((err as AppError).status).toBe(500);
  });

  describe('SecretBox and service secrets with KMS', () => {
    it('seal/open = AES-256-GCM under the data key (service secret "secret-box", one KMS Decrypt per container); no KMS call per secret', async () => {
      const t = await createTestTable('keys-env-box');
      const { secretBox } = services(kms.client, t);
      const sealed = await secretBox.seal('s3cr3t-value');
      expect(sealed.startsWith('dk1.')).toBe(true);
      expect(sealed).not.toContain('s3cr3t');
      expect(secretBox.isCurrent(sealed)).toBe(true);
      // The data key was created: one Encrypt with the service-secret context, nothing per value.
      expect(kms.mock.commandCalls(EncryptCommand).map((c) => c.args[0].input)).toEqual([
        expect.objectContaining({ KeyId: KMS_KEY_ARN, EncryptionContext: { purpose: 'service-secret', name: 'secret-box' } }),
      ]);
      const more = await Promise.all(Array.from({ length: 50 }, (_, i) => secretBox.seal(`secret-${i}`)));
      expect(await secretBox.open(sealed)).toBe('s3cr3t-value');
      expect(kms.mock.calls()).toHaveLength(1);
      // A new container: one Decrypt (the data key), then 51 secrets open in memory.
      kms.mock.resetHistory();
      const cold = services(kms.client, t).secretBox;
      expect(await Promise.all(more.map((m) => cold.open(m)))).toEqual(Array.from({ length: 50 }, (_, i) => `secret-${i}`));
      expect(await cold.open(sealed)).toBe('s3cr3t-value');
      expect(kms.mock.calls().map((c) => c.args[0].constructor.name)).toEqual(['DecryptCommand']);
      expect(kms.mock.commandCalls(DecryptCommand)[0]!.args[0].input).toMatchObject({
        KeyId: KMS_KEY_ARN,
        EncryptionContext: { purpose: 'service-secret', name: 'secret-box' },
      });
      const body = Buffer.from(sealed.slice(4), 'base64url');
      body[body.length - 1]! ^= 1;
      await expect(cold.open(`dk1.${body.toString('base64url')}`)).rejects.toMatchObject({ status: 500 });
      // Another stage's data key does not open it.
      await expect(services(kms.client, await createTestTable('keys-env-box-2')).secretBox.open(sealed)).rejects.toMatchObject({
        status: 500,
      });
    });

    it('a value of the earlier format (kms1., one KMS Encrypt each, context {purpose: secret-box}) still opens, with one Decrypt', async () => {
      const wrapper = createKeyBackend(envelopeConfig(table), kms.client).wrapper;
      const legacy = `kms1.${await wrapper.wrap(Buffer.from('old-secret'), { purpose: 'secret-box' })}`;
      kms.mock.resetHistory();
      const { secretBox } = services();
      expect(secretBox.isCurrent(legacy)).toBe(false);
      expect(await secretBox.open(legacy)).toBe('old-secret');
      expect(kms.mock.commandCalls(DecryptCommand).map((c) => c.args[0].input.EncryptionContext)).toEqual([{ purpose: 'secret-box' }]);
      await expect(secretBox.open(`local1.${legacy.slice(5)}`)).rejects.toMatchObject({ status: 500 });
    });

    it('serviceSecret: 32 bytes, stored sealed with context {purpose: service-secret, name}; two racing containers get the same secret', async () => {
      const t = await createTestTable('keys-env-secret');
      const a = services(kms.client, t);
      const b = services(kms.client, t);
      const [sa, sb] = await Promise.all([a.serviceSecret('cursor'), b.serviceSecret('cursor')]);
      expect(sa).toHaveLength(32);
      expect(sb.equals(sa)).toBe(true);
      const enc = kms.mock.commandCalls(EncryptCommand).map((c) => c.args[0].input.EncryptionContext);
      expect(enc[0]).toEqual({ purpose: 'service-secret', name: 'cursor' });
      const { Item } = await t.db.send(new GetCommand({ TableName: t.tableName, Key: tableKeys.serviceSecret('cursor') }));
      expect(Item).toMatchObject({ type: 'ServiceSecret', name: 'cursor', wrapped_by: 'kms' });
      expect(Buffer.from(Item!.sealed, 'base64url').includes(sa)).toBe(false);
      // Cached per process: no further KMS or table work.
      kms.mock.resetHistory();
      expect((await a.serviceSecret('cursor')).equals(sa)).toBe(true);
      expect(kms.mock.calls()).toHaveLength(0);
      // A new container opens the stored one with one Decrypt.
      const c = services(kms.client, t);
      expect((await c.serviceSecret('cursor')).equals(sa)).toBe(true);
      expect(kms.mock.commandCalls(DecryptCommand)).toHaveLength(1);
      expect((await c.serviceSecret('other')).equals(sa)).toBe(false);
    });
  });
});
