import { createHash } from 'node:crypto';
import { GetPublicKeyCommand, SignCommand } from '@aws-sdk/client-kms';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { decodeProtectedHeader } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '#shared/config.ts';
import { createKeyServices } from '#shared/keys/create-key-services.ts';
import { jwkOfKey, kidOf } from '#shared/keys/jwk.ts';
import { RETIRE_MARGIN_SECONDS } from '#shared/keys/key-timing.ts';
import { rotateKeys } from '#shared/keys/rotate-keys.ts';
import { keys as tableKeys } from '#shared/store/core/table-keys.ts';
import { type FakeKms, fakeKms, KMS_KEY_ARN, KMS_SIGNING_KEY_ARN, KMS_SIGNING_KEY_ARN_2 } from '../support/keys/fake-kms.ts';
import { claims, envelopeConfig, ISSUER, testClock, verifyWithJwks } from '../support/keys/key-test-env.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';

describe('kms-sign mode (docs/design.md §4): the private key never leaves KMS', () => {
  let table: TestTable;
  let kms: FakeKms;
  const clock = testClock();
  beforeEach(async () => {
    table = await createTestTable('keys-kms-sign');
    kms = fakeKms();
  });
  const config = (keyId = KMS_SIGNING_KEY_ARN) =>
    envelopeConfig(table, { KEY_MODE: 'kms-sign', KMS_SIGNING_KEY_ID: keyId, KEY_RETIRE_AFTER_SECONDS: '3600' });
  const services = (keyId = KMS_SIGNING_KEY_ARN, client = kms.client) =>
    createKeyServices({ config: config(keyId), db: table.db, now: clock.now, kms: client });

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

  it('GetPublicKey once per container, then one Sign per token; the key is registered in the table (no private key there)', async () => {
    const { keys } = services();
    for (let i = 0; i < 6; i++) await keys.signJwt('ES256', {}, claims(clock.now()));
    expect(kms.mock.commandCalls(GetPublicKeyCommand)).toHaveLength(1);
    expect(kms.mock.commandCalls(GetPublicKeyCommand)[0]!.args[0].input).toEqual({ KeyId: KMS_SIGNING_KEY_ARN });
    expect(kms.mock.commandCalls(SignCommand)).toHaveLength(6);
    const kid = await kidOf(jwkOfKey(kms.signingPublicKey));
    const { Item } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: tableKeys.signingKey(kid) }));
    expect(Item).toMatchObject({ wrapped_by: 'kms-sign', kms_key_id: KMS_SIGNING_KEY_ARN, status: 'current', alg: 'ES256' });
    expect(Item).not.toHaveProperty('wrapped_private_key');
  });

  it('verifiers and the JWKS read the table only: zero KMS calls (read-only functions have no KMS grant)', async () => {
    const token = await services().keys.signJwt('ES256', { typ: 'at+jwt' }, claims(clock.now()));
    const verifierKms = fakeKms();
    const verifier = services(KMS_SIGNING_KEY_ARN, verifierKms.client).keys;
    await verifyWithJwks(token, verifier, clock.now());
    expect((await verifier.publicKey(decodeProtectedHeader(token).kid!))?.status).toBe('current');
    const [entry, ...rest] = await verifier.publishedKeys();
    expect(rest).toHaveLength(0);
    expect(Object.keys(entry!.jwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    expect(verifierKms.mock.calls()).toHaveLength(0);
  });

  it('the rotation function registers the key before any token (so the JWKS has it) and then has nothing to rotate', async () => {
    const run = () => rotateKeys({ config: config(), db: table.db, now: clock.now, kms: kms.client });
    const first = await run();
    expect(first.map((r) => [r.alg, r.action])).toEqual([
      ['ES256', 'created'],
      ['RS256', 'skipped'],
    ]);
    expect(await services(KMS_SIGNING_KEY_ARN, fakeKms().client).keys.publishedKeys()).toHaveLength(1);
    const [again] = await run();
    expect(again).toMatchObject({ action: 'skipped', reason: expect.stringMatching(/KMS_SIGNING_KEY_ID/) });
  });

  it('pointing KMS_SIGNING_KEY_ID at a new key: the old key becomes previous and keeps verifying its tokens until the retire period ends', async () => {
    const oldToken = await services(KMS_SIGNING_KEY_ARN).keys.signJwt('ES256', {}, claims(clock.now()));
    const [r] = await rotateKeys({ config: config(KMS_SIGNING_KEY_ARN_2), db: table.db, now: clock.now, kms: kms.client, algs: ['ES256'] });
    expect(r).toMatchObject({ action: 'rotated', previous: [decodeProtectedHeader(oldToken).kid] });
    const signer = services(KMS_SIGNING_KEY_ARN_2).keys;
    const newToken = await signer.signJwt('ES256', {}, claims(clock.now()));
    expect(decodeProtectedHeader(newToken).kid).toBe(r!.current);
    await verifyWithJwks(oldToken, signer, clock.now());
    await verifyWithJwks(newToken, signer, clock.now());
    clock.advance(3600 + RETIRE_MARGIN_SECONDS + 1);
    expect((await services(KMS_SIGNING_KEY_ARN_2).keys.publishedKeys()).map((k) => k.kid)).toEqual([r!.current]);
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
