import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { consentNeeded } from '#shared/browser/consent-needed.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import { consentsRepository } from '#shared/store/sessions/consents-repository.ts';
import { refreshTokensRepository } from '#shared/store/sessions/refresh-tokens-repository.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';

let table: TestTable;
let clock = new Date('2030-01-01T00:00:00.000Z');
const now = () => clock;
const refresh = () => refreshTokensRepository(table.db, table.tableName, now);
const repo = () => consentsRepository(table.db, table.tableName, now, refresh());
const family = async (id: string) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: keys.refreshFamily(id), ConsistentRead: true }))).Item;

beforeAll(async () => {
  table = await createTestTable('user-grants');
});

const issue = async (userId: string, clientId: string) => {
  // Issuing checks the user item (not blocked, no later tokens_revoked_at): a minimal one.
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: { ...keys.user(userId), blocked: false } }));
  return refresh().issue(
    {
      user_id: userId,
      client_id: clientId,
      tenant_id: 't',
      family_id: uuidv7(),
      scope: ['openid', 'offline_access'],
      audience: null,
      auth_time: 1,
      lifetime: null,
    },
    clock.toISOString(),
  );
};

describe('user grants repository (docs/contract.md §6 grants, §7.4)', () => {
  it('saves, finds (resource or userinfo), unions scopes, keeps id and created_at', async () => {
    const user = uuidv7();
    clock = new Date('2030-01-01T00:00:00.000Z');
    const first = await repo().saveConsent({ userId: user, tenantId: 't', clientId: 'c1', resourceId: 'r1', scopes: ['read', 'openid'] });
    expect(first).toEqual({
      id: first.id,
      user_id: user,
      tenant_id: 't',
      client_id: 'c1',
      resource_id: 'r1',
      scopes: ['openid', 'read'],
      created_at: '2030-01-01T00:00:00.000Z',
      updated_at: '2030-01-01T00:00:00.000Z',
    });
    const item = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: keys.consent(user, 'c1', 'r1') }))).Item;
    expect(item).toMatchObject({ PK: `USER#${user}`, SK: 'GRANT#c1#r1', GSI2PK: 'CLIENT#c1#GRANTS', GSI2SK: user, type: 'UserGrant' });
    clock = new Date('2030-01-01T01:00:00.000Z');
    const second = await repo().saveConsent({ userId: user, tenantId: 't', clientId: 'c1', resourceId: 'r1', scopes: ['write'] });
    expect(second).toMatchObject({ id: first.id, created_at: first.created_at, updated_at: '2030-01-01T01:00:00.000Z' });
    expect(second.scopes).toEqual(['openid', 'read', 'write']);
    await repo().saveConsent({ userId: user, tenantId: 't', clientId: 'c1', resourceId: null, scopes: ['openid', 'email'] });
    expect((await repo().findConsent(user, 'c1', undefined))?.scopes).toEqual(['email', 'openid']);
    expect((await repo().findConsent(user, 'c1', 'r1'))?.id).toBe(first.id);
    expect(await repo().findConsent(user, 'c2', 'r1')).toBeUndefined();
    expect((await repo().listConsents(user)).map((g) => [g.client_id, g.resource_id])).toEqual([
      ['c1', 'r1'],
      ['c1', null],
    ]);
  });

  it('20 parallel saves of different scopes: the union keeps all of them', async () => {
    const user = uuidv7();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        repo().saveConsent({ userId: user, tenantId: 't', clientId: 'c', resourceId: 'r', scopes: [`s${i}`] }),
      ),
    );
    const grant = await repo().findConsent(user, 'c', 'r');
    expect(grant?.scopes).toHaveLength(20);
    expect(await repo().listConsents(user)).toHaveLength(1);
  });

  it("deleteConsent removes the grant and revokes that client's refresh families of the user, no others", async () => {
    const user = uuidv7();
    const other = uuidv7();
    const grant = await repo().saveConsent({ userId: user, tenantId: 't', clientId: 'c1', resourceId: null, scopes: ['openid'] });
    const keep = await repo().saveConsent({ userId: user, tenantId: 't', clientId: 'c2', resourceId: null, scopes: ['openid'] });
    const mine = [await issue(user, 'c1'), await issue(user, 'c1')];
    const otherClient = await issue(user, 'c2');
    const otherUser = await issue(other, 'c1');
    const fam = async (t: Awaited<ReturnType<typeof issue>>) => (await refresh().find((t as { token: string }).token))!.family_id;

    expect(await repo().deleteConsent(user, uuidv7())).toBeUndefined();
    expect(await repo().deleteConsent(other, grant.id)).toBeUndefined(); // not that user's grant
    expect(await repo().deleteConsent(user, grant.id)).toEqual(grant);
    expect(await repo().findConsent(user, 'c1', null)).toBeUndefined();
    expect(await repo().findConsent(user, 'c2', null)).toEqual(keep);
    for (const t of mine) expect((await family(await fam(t)))?.revoked).toBe(true);
    expect((await family(await fam(otherClient)))?.revoked).toBe(false);
    expect((await family(await fam(otherUser)))?.revoked).toBe(false);
    expect(await repo().deleteConsent(user, grant.id)).toBeUndefined();
  });
});

describe('consentNeeded (docs/contract.md §7.4 skip rules)', () => {
  const firstParty = { is_first_party: true };
  const thirdParty = { is_first_party: false };
  const skipping = { resource_metadata: { skip_consent_for_first_party: true, is_system: false } };
  const asking = { resource_metadata: { skip_consent_for_first_party: false, is_system: false } };
  const ask = (o: Partial<Parameters<typeof consentNeeded>[0]>) =>
    consentNeeded({ client: thirdParty, resource: asking, grant: undefined, scopes: ['a', 'b'], prompt: [], ...o });

  it('asks a third-party client with no grant; skips when a grant covers every scope', () => {
    expect(ask({})).toBe(true);
    expect(ask({ grant: { scopes: ['a'] } })).toBe(true);
    expect(ask({ grant: { scopes: ['a', 'b', 'c'] } })).toBe(false);
  });
  it('skips for a first-party client when the Resource allows it, or for a /userinfo token', () => {
    expect(ask({ client: firstParty, resource: skipping })).toBe(false);
    expect(ask({ client: firstParty, resource: undefined })).toBe(false);
    expect(ask({ client: firstParty, resource: asking })).toBe(true);
    expect(ask({ client: thirdParty, resource: skipping })).toBe(true);
  });
  it('never skips for a first-party client on the management API, whatever its flag; a covering grant still does', () => {
    const managementApi = { resource_metadata: { skip_consent_for_first_party: true, is_system: true } };
    expect(ask({ client: firstParty, resource: managementApi })).toBe(true);
    expect(ask({ client: firstParty, resource: managementApi, grant: { scopes: ['a', 'b'] } })).toBe(false);
  });
  it('prompt=consent always asks', () => {
    expect(ask({ client: firstParty, resource: skipping, prompt: ['consent'] })).toBe(true);
    expect(ask({ grant: { scopes: ['a', 'b'] }, prompt: ['login', 'consent'] })).toBe(true);
  });
});
