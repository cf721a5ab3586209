import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyServices } from '#shared/keys/create-key-services.ts';
import { createKeyBackend } from '#shared/keys/key-backend.ts';
import { loadOrCreateMasterKey } from '#shared/keys/local-master-key.ts';
import { keys as tableKeys } from '#shared/store/core/table-keys.ts';
import { claims, localConfig, testClock, verifyWithJwks } from '../support/keys/key-test-env.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';

describe('local mode (docs/design.md §1): AES-256-GCM master key file stands where KMS stands, against DynamoDB Local', () => {
  let table: TestTable;
  let dir: string;
  const clock = testClock();
  beforeAll(async () => {
    table = await createTestTable('keys-local');
    dir = mkdtempSync(join(tmpdir(), 'keys-local-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const services = (file = join(dir, 'data', 'master.key'), t = table) =>
    createKeyServices({ config: localConfig(t, file), db: t.db, now: clock.now });

  it('creates the 32-byte master key file with mode 0600 on first use and reuses it', async () => {
    const file = join(dir, 'data', 'master.key');
    const { keys } = services(file);
    const token = await keys.signJwt('ES256', { typ: 'at+jwt' }, claims(clock.now()));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
    const before = readFileSync(file);
    // A restart (new process state) opens the same keys with the same file.
    const again = services(file);
    const token2 = await again.keys.signJwt('ES256', { typ: 'at+jwt' }, claims(clock.now()));
    expect(readFileSync(file).equals(before)).toBe(true);
    await verifyWithJwks(token, again.keys, clock.now());
    await verifyWithJwks(token2, keys, clock.now());
  });

  it('loadOrCreateMasterKey: concurrent creators agree; a raw 32-byte file is accepted; a wrong size is refused', () => {
    const f = join(dir, 'race', 'm.key');
    const keysMade = [loadOrCreateMasterKey(f), loadOrCreateMasterKey(f)];
    expect(keysMade[0]!.equals(keysMade[1]!)).toBe(true);
    const raw = join(dir, 'raw.key');
    writeFileSync(raw, Buffer.alloc(32, 7), { mode: 0o600 });
    expect(loadOrCreateMasterKey(raw).equals(Buffer.alloc(32, 7))).toBe(true);
    const bad = join(dir, 'bad.key');
    writeFileSync(bad, 'too short', { mode: 0o600 });
    expect(() => loadOrCreateMasterKey(bad)).toThrow(/32-byte/);
  });

  it('ES256 and RS256 tokens verify with jose against the published keys; the private key is stored wrapped', async () => {
    const { keys } = services();
    for (const alg of ['ES256', 'RS256'] as const) {
      const token = await keys.signJwt(alg, { typ: 'at+jwt' }, claims(clock.now()));
      const { protectedHeader } = await verifyWithJwks(token, keys, clock.now(), [alg]);
      expect(protectedHeader.alg).toBe(alg);
      const { Item } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: tableKeys.signingKey(protectedHeader.kid!) }));
      expect(Item).toMatchObject({ wrapped_by: 'local', status: 'current', alg });
      expect(Object.keys(Item!.jwk)).not.toContain('d');
    }
  });

  it('another master key cannot open the stored keys (500, no token)', async () => {
    const t = await createTestTable('keys-local-other');
    await services(join(dir, 'a.key'), t).keys.signJwt('ES256', {}, claims(clock.now()));
    await expect(services(join(dir, 'b.key'), t).keys.signJwt('ES256', {}, claims(clock.now()))).rejects.toMatchObject({ status: 500 });
  });

  it('SecretBox round-trips with AES-256-GCM under the data key; tampering and a foreign prefix are refused; the earlier local1. format still opens', async () => {
    const { secretBox } = services();
    const sealed = await secretBox.seal('client-secret-💡');
    expect(sealed.startsWith('dk1.')).toBe(true);
    expect(await secretBox.open(sealed)).toBe('client-secret-💡');
    expect(await secretBox.seal('client-secret-💡')).not.toBe(sealed); // fresh IV each time
    const body = Buffer.from(sealed.slice('dk1.'.length), 'base64url');
    body[body.length - 1]! ^= 1;
    await expect(secretBox.open(`dk1.${body.toString('base64url')}`)).rejects.toMatchObject({ status: 500 });
    await expect(secretBox.open(`kms1.${sealed.slice(4)}`)).rejects.toMatchObject({ status: 500 });
    const wrapper = createKeyBackend(localConfig(table, join(dir, 'data', 'master.key')), undefined).wrapper;
    const legacy = `local1.${await wrapper.wrap(Buffer.from('older'), { purpose: 'secret-box' })}`;
    expect(secretBox.isCurrent(legacy)).toBe(false);
    expect(await secretBox.open(legacy)).toBe('older');
  });

  it('serviceSecret: created once, same value across containers, opened with the master key', async () => {
    const a = services();
    const b = services();
    const [x, y] = await Promise.all([a.serviceSecret('cursor'), b.serviceSecret('cursor')]);
    expect(x.equals(y)).toBe(true);
    expect(x).toHaveLength(32);
    expect((await services().serviceSecret('cursor')).equals(x)).toBe(true);
  });
});
