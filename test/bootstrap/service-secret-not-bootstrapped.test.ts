import { EncryptCommand } from '@aws-sdk/client-kms';
import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '#shared/errors.ts';
import { createKeyServices } from '#shared/keys/create-key-services.ts';
import { fakeKms, KmsError } from '../support/keys/fake-kms.ts';
import { envelopeConfig, testClock } from '../support/keys/key-test-env.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';

/**
 * A list function's role has table read and kms:Decrypt only (shared/routes/access-profiles.ts LIST): it can read
 * the `cursor` secret the stage bootstrap made, and cannot make it. KMS here is the fake with real
 * cryptography, except that Encrypt answers like IAM does for a role without kms:Encrypt.
 */
describe('service secrets on a read-only function (docs/deploy.md, "Bootstrap")', () => {
  let table: TestTable;
  const clock = testClock();
  beforeAll(async () => {
    table = await createTestTable('admin-secret-readonly');
  });

  const readOnlyServices = (t: TestTable) => {
    const kms = fakeKms();
    kms.mock.on(EncryptCommand).rejects(new KmsError('AccessDeniedException', 'User is not authorized to perform: kms:Encrypt'));
    return { kms, services: createKeyServices({ config: envelopeConfig(t), db: t.db, now: clock.now, kms: kms.client }) };
  };

  it('no secret yet: a 500 whose log detail names the missing bootstrap, not an AccessDenied from KMS', async () => {
    const t = await createTestTable('admin-secret-missing');
    const { services } = readOnlyServices(t);
    const err = await services.serviceSecret('cursor').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect([e.status, e.code, e.expose, e.message]).toEqual([500, 'internal_error', false, 'Internal error.']);
    expect(String(e.detail)).toMatch(/service secret "cursor" does not exist .*not been bootstrapped.*npm run bootstrap -- --stage/);
    // What the HTTP error renderer logs as `error` is this error itself, not the KMS AccessDenied.
    expect(e.cause).toBeUndefined();
  });

  it('after bootstrap made it, the same read-only function reads it with one Decrypt and no Encrypt', async () => {
    const kms = fakeKms();
    const writer = createKeyServices({ config: envelopeConfig(table), db: table.db, now: clock.now, kms: kms.client });
    const made = await writer.serviceSecret('cursor');
    // A second container of a read-only function on the same table and KMS key.
    const reader = createKeyServices({ config: envelopeConfig(table), db: table.db, now: clock.now, kms: kms.client });
    kms.mock.on(EncryptCommand).rejects(new KmsError('AccessDeniedException'));
    kms.mock.resetHistory();
    expect((await reader.serviceSecret('cursor')).equals(made)).toBe(true);
    expect(kms.mock.commandCalls(EncryptCommand)).toHaveLength(0);
    expect(kms.mock.calls().map((c) => c.args[0].constructor.name)).toEqual(['DecryptCommand']);
  });

  it('other failures keep their own error (a throttled KMS is still a 503)', async () => {
    const t = await createTestTable('admin-secret-throttled');
    const kms = fakeKms();
    kms.mock.on(EncryptCommand).rejects(new KmsError('ThrottlingException'));
    const services = createKeyServices({ config: envelopeConfig(t), db: t.db, now: clock.now, kms: kms.client });
    await expect(services.serviceSecret('cursor')).rejects.toMatchObject({ status: 503 });
  });
});
