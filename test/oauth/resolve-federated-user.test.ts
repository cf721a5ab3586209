import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProviderIdentity } from '#shared/federation/verify-provider-id-token.ts';
import { type FederatedUserDeps, resolveFederatedUser } from '#shared/oauth/federation/resolve-federated-user.ts';
import type { IdentityProviderRecord } from '#shared/records/identity-provider-record.ts';
import { entity } from '#shared/store/core/entity.ts';
import { queryPrefix } from '#shared/store/core/reads/query-all.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { userIdentitiesRepository } from '#shared/store/users/user-identities-repository.ts';
import { userMarker } from '#shared/store/users/user-markers.ts';
import { ACTOR, type StoreFixture, storeFixture } from '../support/store/store-fixture.ts';

let f: StoreFixture;
let deps: FederatedUserDeps;
beforeAll(async () => {
  f = await storeFixture('federated-user');
  deps = { users: f.users, identities: userIdentitiesRepository(f.db, f.tableName, f.now) };
});

const raw = async (key: { PK: string; SK: string }) =>
  (await f.db.send(new GetCommand({ TableName: f.tableName, Key: key, ConsistentRead: true }))).Item;
const identitiesOf = (userId: string) => queryPrefix(f.db, f.tableName, keys.userPartition(userId), keys.identityPrefix);

/** A provider of `tenantId` as the identity-provider store holds it. */
function provider(tenantId: string = f.tenantId): IdentityProviderRecord {
  return {
    id: randomUUID(),
    tenant_id: tenantId,
    provider_name: `idp-${randomUUID().slice(0, 8)}`,
    provider_type: 'oidc',
    issuer: 'https://idp.example.com',
    client_id: 'our-client',
    scopes: ['openid', 'email', 'profile'],
    enabled: true,
    version: 1,
    created_by: ACTOR,
    created_at: '2026-01-15T10:00:00.000Z',
    updated_by: ACTOR,
    updated_at: '2026-01-15T10:00:00.000Z',
  };
}

/** The identity verifyProviderIdToken hands over (shared/federation/verify-provider-id-token.ts). */
const identity = (claims: Partial<ProviderIdentity> = {}): ProviderIdentity => ({
  iss: 'https://idp.example.com',
  aud: 'our-client',
  exp: 1_900_000_000,
  iat: 1_800_000_000,
  sub: `sub-${randomUUID()}`,
  ...claims,
});

const marker = (providerId: string, sub: string) => raw(keys.marker('IDENTITY', providerId, sub));

describe('resolveFederatedUser (docs/contract.md §7.7)', () => {
  it('a first sign-in creates the user with the copied claims and links it in one transaction; the next finds it', async () => {
    const p = provider();
    const email = `Fed-${randomUUID().slice(0, 8)}@Example.com`;
    const id = identity({
      email,
      email_verified: true,
      name: 'Ada Lovelace',
      given_name: 'Ada',
      family_name: 'Lovelace',
      picture: 'https://idp.example.com/ada.png',
    });
    const before = await f.users.count(f.tenantId);
    const user = await resolveFederatedUser(deps, p, id, ACTOR);
    expect(user).toMatchObject({
      tenant_id: f.tenantId,
      email,
      email_verified: true,
      name: 'Ada Lovelace',
      given_name: 'Ada',
      family_name: 'Lovelace',
      picture: 'https://idp.example.com/ada.png',
      blocked: false,
      created_by: ACTOR,
    });
    expect(user.password_hash).toBeUndefined();
    expect(await f.users.count(f.tenantId)).toBe(before + 1);
    // Stored: the user (with its identity count), its email marker, the identity and its marker.
    expect(await raw(keys.user(user.id))).toMatchObject({ id: user.id, identity_count: 1 });
    expect((await raw(userMarker(f.tenantId, 'email', email)))?.target_id).toBe(user.id);
    const [stored, ...more] = await identitiesOf(user.id);
    expect(more).toEqual([]);
    expect(stored).toMatchObject({
      type: 'UserIdentity',
      tenant_id: f.tenantId,
      user_id: user.id,
      provider_id: p.id,
      provider_user_id: id.sub,
      created_by: ACTOR,
    });
    expect(await marker(p.id, id.sub)).toMatchObject({ target_id: stored!.id, user_id: user.id, tenant_id: f.tenantId });

    const again = await resolveFederatedUser(deps, p, { ...id, name: 'Changed' }, ACTOR);
    expect(again).toEqual(user);
    expect(await f.users.count(f.tenantId)).toBe(before + 1);
  });

  it('claims that fail the Users rules are left out; email_verified defaults to false', async () => {
    const p = provider();
    const user = await resolveFederatedUser(
      deps,
      p,
      identity({ email: `ok-${randomUUID().slice(0, 8)}@example.com`, picture: 'javascript:alert(1)', name: 'x'.repeat(256) }),
      ACTOR,
    );
    expect(user.email_verified).toBe(false);
    expect(user.picture).toBeUndefined();
    expect(user.name).toBeUndefined();

    const noEmail = await resolveFederatedUser(deps, p, identity({ email: 'not an email', email_verified: true, given_name: 'G' }), ACTOR);
    expect(noEmail.email).toBeUndefined();
    expect(noEmail.email_verified).toBe(false);
    expect(noEmail.given_name).toBe('G');
  });

  it("another user's email (any case) is 400 invalid_request and nothing is linked", async () => {
    const p = provider();
    const email = `taken-${randomUUID().slice(0, 8)}@example.com`;
    await f.users.create({ tenant_id: f.tenantId, email }, ACTOR);
    const before = await f.users.count(f.tenantId);
    const id = identity({ email: email.toUpperCase() });
    await expect(resolveFederatedUser(deps, p, id, ACTOR)).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: expect.stringContaining('email'),
    });
    expect(await marker(p.id, id.sub)).toBeUndefined();
    expect(await f.users.count(f.tenantId)).toBe(before);
  });

  it('the email check holds inside the transaction too: an email taken after the read is 400, nothing stored', async () => {
    const p = provider();
    const email = `late-${randomUUID().slice(0, 8)}@example.com`;
    const id = identity({ email });
    // The look-up sees no owner; the user with that email lands between it and the transaction.
    const racing: FederatedUserDeps = {
      ...deps,
      users: {
        get: deps.users.get,
        findIdByLogin: async () => {
          await f.users.create({ tenant_id: f.tenantId, email }, ACTOR);
          return undefined;
        },
      },
    };
    const before = await f.users.count(f.tenantId);
    await expect(resolveFederatedUser(racing, p, id, ACTOR)).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
    expect(await marker(p.id, id.sub)).toBeUndefined();
    expect(await f.users.count(f.tenantId)).toBe(before + 1);
  });

  it('10 concurrent first sign-ins of one identity make exactly one user and one identity', async () => {
    const p = provider();
    const email = `race-${randomUUID().slice(0, 8)}@example.com`;
    const id = identity({ email, email_verified: true });
    const before = await f.users.count(f.tenantId);
    const users = await Promise.all(Array.from({ length: 10 }, () => resolveFederatedUser(deps, p, id, ACTOR)));
    const ids = new Set(users.map((u) => u.id));
    expect(ids.size).toBe(1);
    const [userId] = ids;
    expect(await f.users.count(f.tenantId)).toBe(before + 1);
    expect(await identitiesOf(userId!)).toHaveLength(1);
    expect((await marker(p.id, id.sub))?.user_id).toBe(userId);
    expect((await raw(userMarker(f.tenantId, 'email', email)))?.target_id).toBe(userId);
  });

  it("a deleted user's identity is swept with it; the provider user then signs in as a new user", async () => {
    const p = provider();
    const id = identity();
    const first = await resolveFederatedUser(deps, p, id, ACTOR);
    const [item] = await identitiesOf(first.id);
    expect(await f.users.delete(first.id)).toBe(true);
    expect(await identitiesOf(first.id)).toEqual([]);
    expect(await marker(p.id, id.sub)).toBeUndefined();
    expect(await raw(keys.userIdentity(first.id, String(item!.id)))).toBeUndefined();
    const second = await resolveFederatedUser(deps, p, id, ACTOR);
    expect(second.id).not.toBe(first.id);
  });

  it('a marker left by a user whose delete did not finish is replaced, the stale identity item dropped', async () => {
    const p = provider();
    const sub = `sub-${randomUUID()}`;
    const goneUser = randomUUID();
    const staleId = randomUUID();
    await f.db.send(
      new PutCommand({
        TableName: f.tableName,
        Item: {
          ...keys.marker('IDENTITY', p.id, sub),
          ...entity('UniqueMarker'),
          target_id: staleId,
          user_id: goneUser,
          tenant_id: f.tenantId,
        },
      }),
    );
    await f.db.send(
      new PutCommand({ TableName: f.tableName, Item: { ...keys.userIdentity(goneUser, staleId), ...entity('UserIdentity'), id: staleId } }),
    );
    const user = await resolveFederatedUser(deps, p, identity({ sub }), ACTOR);
    expect(user.id).not.toBe(goneUser);
    expect((await marker(p.id, sub))?.user_id).toBe(user.id);
    expect(await raw(keys.userIdentity(goneUser, staleId))).toBeUndefined();
  });

  it('a deleted tenant gets no user: 404 and no marker (the users create plan holds)', async () => {
    const tenantId = randomUUID();
    await f.db.send(
      new PutCommand({
        TableName: f.tableName,
        Item: { ...keys.collectionCounter(tenantId, 'USERS'), ...entity('Counter'), count: 0, tenant_deleted: true },
      }),
    );
    const p = provider(tenantId);
    const id = identity();
    await expect(resolveFederatedUser(deps, p, id, ACTOR)).rejects.toMatchObject({ status: 404 });
    expect(await marker(p.id, id.sub)).toBeUndefined();
  });
});
