import { createHash } from 'node:crypto';
import { GetPublicKeyCommand, SignCommand } from '@aws-sdk/client-kms';
import { decodeProtectedHeader } from 'jose';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config.ts';
import { createKeyServices } from '../../shared/keys/create-key-services.ts';
import { jwkOfKey, kidOf } from '../../shared/keys/jwk.ts';
import { createTestTable, type TestTable } from '../support/dynamodb.ts';
import { fakeKms, KMS_KEY_ARN, KMS_SIGNING_KEY_ARN, type FakeKms } from './support/fake-kms.ts';
import { claims, envelopeConfig, ISSUER, testClock, verifyWithJwks } from './support/key-test-env.ts';

describe('kms-sign mode (DESIGN.md §4): the private key never leaves KMS', () => {
  let table: TestTable;
  let kms: FakeKms;
  const clock = testClock();
  beforeAll(async () => {
    table = await createTestTable('keys-kms-sign');
  });
  beforeEach(() => {
    kms = fakeKms();
  });
  const services = () =>
    createKeyServices({ config: envelopeConfig(table, { KEY_MODE: 'kms-sign', KMS_SIGNING_KEY_ID: KMS_SIGNING_KEY_ARN }), db: table.db, now: clock.now, kms: kms.client });

  it('each token is one KMS Sign of the SHA-256 digest (MessageType DIGEST, ECDSA_SHA_256), converted from DER to r || s; jose verifies it', async () => {
    const { keys } = services();
    const token = await keys.signJwt('ES256', { typ: 'at+jwt' }, claims(clock.now()));
    const [header, payload, sig] = token.split('.') as [string, string, string];
    const signs = kms.mock.commandCalls(SignCommand);
    expect(signs).toHaveLength(1);
    expect(signs[0]!.args[0].input).toEqual({
      KeyId: KMS_SIGNING_KEY_ARN,
      Message: createHash('sha256').update(`${header}.${payload}`).digest(),
      MessageType: 'DIGEST',
      SigningAlgorithm: 'ECDSA_SHA_256',
    });
    expect(Buffer.from(sig, 'base64url')).toHaveLength(64);
    const { payload: claimsOut, protectedHeader } = await verifyWithJwks(token, keys, clock.now(), ['ES256']);
    expect(claimsOut.iss).toBe(ISSUER);
    // kid = RFC 7638 thumbprint of the KMS public key.
    expect(protectedHeader.kid).toBe(await kidOf(jwkOfKey(kms.signingPublicKey)));
  });

  it('GetPublicKey once per process, then one Sign per token', async () => {
    const { keys } = services();
    for (let i = 0; i < 5; i++) await keys.signJwt('ES256', {}, claims(clock.now()));
    await keys.publishedKeys();
    await keys.publicKey(decodeProtectedHeader(await keys.signJwt('ES256', {}, claims(clock.now()))).kid!);
    expect(kms.mock.commandCalls(GetPublicKeyCommand)).toHaveLength(1);
    expect(kms.mock.commandCalls(GetPublicKeyCommand)[0]!.args[0].input).toEqual({ KeyId: KMS_SIGNING_KEY_ARN });
    expect(kms.mock.commandCalls(SignCommand)).toHaveLength(6);
  });

  it('publishes the KMS public key only, with public members', async () => {
    const [entry, ...rest] = await services().keys.publishedKeys();
    expect(rest).toHaveLength(0);
    expect(Object.keys(entry!.jwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    expect(entry!.status).toBe('current');
  });

  it('RS256 is not available in this mode: 501', async () => {
    await expect(services().keys.signJwt('RS256', {}, claims(clock.now()))).rejects.toMatchObject({ status: 501, code: 'not_implemented' });
    expect(kms.mock.commandCalls(SignCommand)).toHaveLength(0);
  });

  it('the SecretBox still uses the symmetric KMS_KEY_ID', async () => {
    const { secretBox } = services();
    expect(await secretBox.open(await secretBox.seal('x'))).toBe('x');
    expect(kms.mock.calls().every((c) => (c.args[0].input as { KeyId?: string }).KeyId === KMS_KEY_ARN)).toBe(true);
  });

  it('configuration: kms-sign needs KMS_SIGNING_KEY_ID', () => {
    expect(() => loadConfig({ TABLE_NAME: 't', ISSUER, KEY_MODE: 'kms-sign', KMS_KEY_ID: KMS_KEY_ARN })).toThrow(/KMS_SIGNING_KEY_ID/);
  });
});
