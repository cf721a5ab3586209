import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClientRecord, TokenGrants } from '#shared/records/client-record.ts';
import { readClientPartition } from '#shared/store/clients/client-partition.ts';
import { commitPlan } from '#shared/store/core/commit-plan.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { putItem, updateItem } from '#shared/store/core/writes.ts';
import { linkItem, MAX_PERMISSIONS_PER_CLIENT, MAX_RESOURCES_PER_CLIENT, permissionItem } from '#shared/store/rbac/link-writes.ts';
import { reconcileTokenViews } from '#shared/store/token-path/reconcile-token-views.ts';
import { tokenViewOf } from '#shared/store/token-path/resource-token-view.ts';
import { ACTOR, newResource, type StoreFixture, storeFixture } from '../support/store/store-fixture.ts';

/**
 * The token path reads a client's grants from its item (`token_grants`) and a resource from its
 * identifier marker (`token_view`) instead of the client partition and GSI2 (one read per token).
 * These copies are only as good as their upkeep: after every kind of write, each must equal what
 * the source items say.
 */
let f: StoreFixture;
beforeAll(async () => {
  f = await storeFixture('tokenviews');
});

const getRaw = async (key: { PK: string; SK: string }) =>
  (await f.db.send(new GetCommand({ TableName: f.tableName, Key: key, ConsistentRead: true }))).Item;

/** `token_grants` as the partition's link and permission items say it should be. */
async function grantsFromPartition(clientId: string): Promise<TokenGrants> {
  const p = (await readClientPartition(f.db, f.tableName, clientId))!;
  const g: TokenGrants = Object.fromEntries([...p.links.keys()].map((r) => [r, {}]));
  for (const x of p.permissions) (g[x.resource_id] ??= {})[x.scope_id] = true;
  return g;
}

async function expectClientView(clientId: string, expected?: TokenGrants) {
  const item = (await getRaw(keys.client(clientId))) as ClientRecord | undefined;
  const fromPartition = await grantsFromPartition(clientId);
  expect(item?.token_grants).toEqual(fromPartition);
  expect(item?.token_grants_version).toBe(item?.links_version);
  if (expected) expect(fromPartition).toEqual(expected);
}

async function expectResourceView(resourceId: string) {
  const r = (await f.resources.get(resourceId))!;
  const marker = await getRaw(keys.marker('RESOURCE_ID_URL', r.tenant_id, r.resource_metadata.identifier_url));
  expect(marker?.target_id).toBe(r.id);
  expect(marker?.token_view).toEqual(tokenViewOf(r));
  expect(await f.resources.getTokenView(r.tenant_id, r.resource_metadata.identifier_url)).toEqual(tokenViewOf(r));
  return r;
}

async function clientWithTwoResources() {
  const c = await f.clients.create({ tenant_id: f.tenantId, client_name: 'tv' }, ACTOR);
  const r1 = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 'a' }, { scope_name: 'b' }]);
  const r2 = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 'c' }]);
  const [a, b] = Object.keys(r1.scope_names);
  const [cc] = Object.keys(r2.scope_names);
  return { c, r1, r2, a: a!, b: b!, cc: cc! };
}

describe('client token_grants follow links and permissions', () => {
  it('a new client has an empty map; authorize, grant and revoke keep it equal to the partition', async () => {
    const { c, r1, r2, a, b, cc } = await clientWithTwoResources();
    await expectClientView(c.id, {});
    await f.links.authorize(c.id, [r1.id, r2.id], ACTOR);
    await expectClientView(c.id, { [r1.id]: {}, [r2.id]: {} });
    await f.permissions.grant(
      c.id,
      [
        { resource_id: r1.id, scopes: [a, b] },
        { resource_id: r2.id, scopes: [cc] },
      ],
      ACTOR,
    );
    await expectClientView(c.id, { [r1.id]: { [a]: true, [b]: true }, [r2.id]: { [cc]: true } });
    await f.permissions.revoke(c.id, [{ resource_id: r1.id, scopes: [a] }]);
    await expectClientView(c.id, { [r1.id]: { [b]: true }, [r2.id]: { [cc]: true } });
    // Revoking a link takes the client's permissions on it along (docs/contract.md §6).
    await f.links.revoke(c.id, [r2.id]);
    await expectClientView(c.id, { [r1.id]: { [b]: true } });
    const g = await f.clients.getClientWithGrants(c.id);
    expect(g?.resources).toEqual(new Set([r1.id]));
    expect(g?.grants).toEqual(new Map([[r1.id, new Set([b])]]));
  });

  it('from the resource side: authorizeClients and revokeClients', async () => {
    const { c, r1, a } = await clientWithTwoResources();
    await f.links.authorizeClients(r1.id, [c.id], ACTOR);
    await f.permissions.grant(c.id, [{ resource_id: r1.id, scopes: [a] }], ACTOR);
    await expectClientView(c.id, { [r1.id]: { [a]: true } });
    await f.links.revokeClients(r1.id, [c.id]);
    await expectClientView(c.id, {});
  });

  it('cascades: deleting a scope or a resource removes their entries from every holder', async () => {
    const { c, r1, r2, a, b, cc } = await clientWithTwoResources();
    const other = await f.clients.create({ tenant_id: f.tenantId, client_name: 'tv2' }, ACTOR);
    for (const id of [c.id, other.id]) {
      await f.links.authorize(id, [r1.id, r2.id], ACTOR);
      await f.permissions.grant(
        id,
        [
          { resource_id: r1.id, scopes: [a, b] },
          { resource_id: r2.id, scopes: [cc] },
        ],
        ACTOR,
      );
    }
    await f.scopes.delete(r1.id, a);
    await f.resources.delete(r2.id);
    for (const id of [c.id, other.id]) await expectClientView(id, { [r1.id]: { [b]: true } });
  });

  it('a link with more permissions than fit one transaction is removed whole (several transactions)', async () => {
    const c = await f.clients.create({ tenant_id: f.tenantId, client_name: 'big' }, ACTOR);
    const r = await f.resources.create(newResource(f.tenantId), ACTOR);
    const scopeIds: string[] = [];
    for (let i = 0; i < 150; i++) scopeIds.push((await f.scopes.create(r.id, { scope_name: `s${i}` }, ACTOR)).id);
    await f.links.authorize(c.id, [r.id], ACTOR);
    await f.permissions.grant(c.id, [{ resource_id: r.id, scopes: scopeIds }], ACTOR);
    await expectClientView(c.id, { [r.id]: Object.fromEntries(scopeIds.map((s) => [s, true as const])) });
    await f.links.revoke(c.id, [r.id]);
    await expectClientView(c.id, {});
  });

  it('parallel grants of different scopes lose none', async () => {
    const c = await f.clients.create({ tenant_id: f.tenantId, client_name: 'par' }, ACTOR);
    const r = await f.resources.create(
      newResource(f.tenantId),
      ACTOR,
      Array.from({ length: 10 }, (_, i) => ({ scope_name: `p${i}` })),
    );
    await f.links.authorize(c.id, [r.id], ACTOR);
    const ids = Object.keys(r.scope_names);
    await Promise.all(ids.map((s) => f.permissions.grant(c.id, [{ resource_id: r.id, scopes: [s] }], ACTOR)));
    await expectClientView(c.id, { [r.id]: Object.fromEntries(ids.map((s) => [s, true as const])) });
  });

  it(`caps: more than ${MAX_RESOURCES_PER_CLIENT} resources or ${MAX_PERMISSIONS_PER_CLIENT} permissions is 409, nothing written`, async () => {
    const { c, r1, r2, a } = await clientWithTwoResources();
    await f.links.authorize(c.id, [r1.id], ACTOR);
    // Reaching the caps for real takes thousands of writes; the checks read the exact counts,
    // so the test sets them where they would be.
    const setCount = (field: string, n: number) =>
      f.db.send(
        new UpdateCommand({
          TableName: f.tableName,
          Key: keys.client(c.id),
          UpdateExpression: 'SET aggregations.#f = :n',
          ExpressionAttributeNames: { '#f': field },
          ExpressionAttributeValues: { ':n': n },
        }),
      );
    await setCount('permissions', MAX_PERMISSIONS_PER_CLIENT);
    await expect(f.permissions.grant(c.id, [{ resource_id: r1.id, scopes: [a] }], ACTOR)).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining(`${MAX_PERMISSIONS_PER_CLIENT} permissions`),
    });
    await setCount('resources', MAX_RESOURCES_PER_CLIENT);
    await expect(f.links.authorize(c.id, [r2.id], ACTOR)).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining(`${MAX_RESOURCES_PER_CLIENT} authorized resources`),
    });
    await expect(f.links.authorizeClients(r2.id, [c.id], ACTOR)).rejects.toMatchObject({ status: 409 });
    expect(await grantsFromPartition(c.id)).toEqual({ [r1.id]: {} });
  });
});

describe('resource token_view follows the resource and its scopes', () => {
  it('create (with scopes), scope create, rename and delete', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 'one' }]);
    await expectResourceView(r.id);
    const s = await f.scopes.create(r.id, { scope_name: 'two' }, ACTOR);
    await expectResourceView(r.id);
    await f.scopes.update(r.id, s.id, { scope_name: 'deux' }, ACTOR);
    const after = await expectResourceView(r.id);
    expect(Object.values(after.scope_names).sort()).toEqual(['deux', 'one']);
    await f.scopes.delete(r.id, s.id);
    expect(Object.values((await expectResourceView(r.id)).scope_names)).toEqual(['one']);
  });

  it('metadata changes: algorithm, sealed secret, lifetime, RBAC; a change of no view field leaves the view', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR);
    await f.resources.update(
      r.id,
      { resource_metadata: { signing_algorithm: 'HS256', signing_secret: 'x'.repeat(32), token_lifetime: 120, rbac_enabled: true } },
      ACTOR,
    );
    const hs = await expectResourceView(r.id);
    expect(hs.resource_metadata.signing_secret).toMatch(/^dk1\./); // sealed, as on the record
    await f.resources.update(r.id, { resource_metadata: { signing_algorithm: 'RS256' } }, ACTOR);
    expect((await expectResourceView(r.id)).resource_metadata.signing_algorithm).toBe('RS256');
    await f.resources.update(r.id, { resource_name: 'renamed' }, ACTOR); // no view field: the marker is not written
    await expectResourceView(r.id);
  });

  it('moving the identifier moves the view; the old identifier names nothing', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 'm' }]);
    const oldUrl = r.resource_metadata.identifier_url;
    const newUrl = `https://moved-${r.id}.example.com/`;
    await f.resources.update(r.id, { resource_metadata: { identifier_url: newUrl } }, ACTOR);
    expect(await f.resources.getTokenView(f.tenantId, oldUrl)).toBeUndefined();
    expect((await expectResourceView(r.id)).resource_metadata.identifier_url).toBe(newUrl);
  });

  it('a move racing scope creates keeps every scope in the view (several rounds: races are timing)', async () => {
    for (let round = 0; round < 5; round++) {
      const r = await f.resources.create(newResource(f.tenantId), ACTOR);
      await Promise.all([
        ...Array.from({ length: 6 }, (_, i) => f.scopes.create(r.id, { scope_name: `race${i}` }, ACTOR)),
        f.resources.update(r.id, { resource_metadata: { identifier_url: `https://race-${round}-${r.id}.example.com/` } }, ACTOR),
        f.resources.update(r.id, { resource_metadata: { token_lifetime: 600 + round } }, ACTOR),
      ]);
      const after = await expectResourceView(r.id);
      expect(Object.keys(after.scope_names)).toHaveLength(6);
    }
  });

  it("a scope delete racing the revoke of a holder's link: never a 500, copies exact (several rounds)", async () => {
    for (let round = 0; round < 5; round++) {
      const { c, r1, a } = await clientWithTwoResources();
      await f.links.authorize(c.id, [r1.id], ACTOR);
      await f.permissions.grant(c.id, [{ resource_id: r1.id, scopes: [a] }], ACTOR);
      const outcomes = await Promise.allSettled([f.scopes.delete(r1.id, a), f.links.revoke(c.id, [r1.id])]);
      for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as { status?: number }).status).toBeLessThan(500);
      await expectClientView(c.id);
    }
  });

  it('delete removes the marker with its view', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 'gone' }]);
    await f.resources.delete(r.id);
    expect(await f.resources.getTokenView(f.tenantId, r.resource_metadata.identifier_url)).toBeUndefined();
    expect(await getRaw(keys.marker('RESOURCE_ID_URL', f.tenantId, r.resource_metadata.identifier_url))).toBeUndefined();
  });

  it('an audience longer than any identifier_url is simply unknown (no oversized key reaches DynamoDB)', async () => {
    expect(await f.resources.getTokenView(f.tenantId, `https://x/${'a'.repeat(3000)}`)).toBeUndefined();
  });
});

describe('reconciliation (bootstrap): copies missing or left behind by another writer', () => {
  it('readers fall back while a copy is missing or stale; reconciling rebuilds exactly what is wrong', async () => {
    const g = await storeFixture('reconcile');
    await g.tenants.ensureDefault();
    const c = await g.clients.create({ tenant_id: g.tenantId, client_name: 'old' }, ACTOR);
    const r = await g.resources.create(newResource(g.tenantId), ACTOR, [{ scope_name: 'x' }, { scope_name: 'z' }]);
    const [x, z] = Object.keys(r.scope_names) as [string, string];
    await g.links.authorize(c.id, [r.id], ACTOR);
    await g.permissions.grant(c.id, [{ resource_id: r.id, scopes: [x, z] }], ACTOR);
    const markerKey = keys.marker('RESOURCE_ID_URL', g.tenantId, r.resource_metadata.identifier_url);
    const raw = async (key: { PK: string; SK: string }) =>
      (await g.db.send(new GetCommand({ TableName: g.tableName, Key: key, ConsistentRead: true }))).Item;
    const send = (
      key: { PK: string; SK: string },
      UpdateExpression: string,
      names: Record<string, string>,
      values?: Record<string, unknown>,
    ) =>
      g.db.send(
        new UpdateCommand({
          TableName: g.tableName,
          Key: key,
          UpdateExpression,
          ExpressionAttributeNames: names,
          ...(values ? { ExpressionAttributeValues: values } : {}),
        }),
      );

    expect(await reconcileTokenViews(g.db, g.tableName, g.now)).toEqual({ clients: 0, resources: 0, failed: 0 });

    // What the previous release's revoke does: the permission item goes, the counts and
    // links_version move, the copy is not touched. The copy now grants a revoked scope, and its
    // stamp says so: the token path must not use it.
    await g.db.send(new DeleteCommand({ TableName: g.tableName, Key: keys.clientPermission(c.id, r.id, z) }));
    await send(
      keys.client(c.id),
      'SET #lv = #lv + :one, #agg.#p = #agg.#p - :one',
      { '#lv': 'links_version', '#agg': 'aggregations', '#p': 'permissions' },
      { ':one': 1 },
    );
    expect(((await raw(keys.client(c.id))) as ClientRecord).token_grants).toEqual({ [r.id]: { [x]: true, [z]: true } });
    expect((await g.clients.getClientWithGrants(c.id))?.grants).toEqual(new Map([[r.id, new Set([x])]]));
    // The previous release's PATCH of the lifetime: the record changes, the view does not.
    await send(
      keys.resource(r.id),
      'SET #m.#l = :l, #v = #v + :one',
      { '#m': 'resource_metadata', '#l': 'token_lifetime', '#v': 'version' },
      { ':l': 60, ':one': 1 },
    );
    // And a marker from before views at all.
    const other = await g.resources.create(newResource(g.tenantId), ACTOR);
    await send(keys.marker('RESOURCE_ID_URL', g.tenantId, other.resource_metadata.identifier_url), 'REMOVE #t', { '#t': 'token_view' });
    const fallback = await g.resources.getTokenView(g.tenantId, other.resource_metadata.identifier_url);
    expect(fallback).toEqual(tokenViewOf((await g.resources.get(other.id))!));

    expect(await reconcileTokenViews(g.db, g.tableName, g.now)).toEqual({ clients: 1, resources: 2, failed: 0 });
    const client = (await raw(keys.client(c.id))) as ClientRecord;
    expect(client.token_grants).toEqual({ [r.id]: { [x]: true } });
    expect(client.token_grants_version).toBe(client.links_version);
    expect((await raw(markerKey))?.token_view).toMatchObject({ token_lifetime: 60 });
    expect(await reconcileTokenViews(g.db, g.tableName, g.now)).toEqual({ clients: 0, resources: 0, failed: 0 });
    // The fine-grained writes work on the repaired items.
    await g.scopes.create(r.id, { scope_name: 'y' }, ACTOR);
    await g.permissions.revoke(c.id, [{ resource_id: r.id, scopes: [x] }]);
    await expectClientViewOf(g, c.id, { [r.id]: {} });
  });

  it('a permission an older release granted (copy left behind) can still be revoked at once, and the copy stays unused until rebuilt', async () => {
    const g = await storeFixture('oldgrant');
    await g.tenants.ensureDefault();
    const c = await g.clients.create({ tenant_id: g.tenantId, client_name: 'old-grant' }, ACTOR);
    const r = await g.resources.create(newResource(g.tenantId), ACTOR, [{ scope_name: 'p' }]);
    const [sp] = Object.keys(r.scope_names) as [string];
    // The previous release's authorize + grant: items and counts, links_version +2, no copy entries.
    const at = g.now().toISOString();
    const base = {
      tenant_id: g.tenantId,
      client_id: c.id,
      resource_id: r.id,
      created_by: ACTOR,
      created_at: at,
      updated_by: ACTOR,
      updated_at: at,
    };
    await commitPlan(g.db, g.tableName, [
      [
        putItem(linkItem({ id: 'l-1', ...base })),
        putItem(permissionItem({ id: 'p-1', ...base, scope_id: sp })),
        updateItem(keys.client(c.id), {
          add: [
            ['links_version', 2],
            [['aggregations', 'resources'], 1],
            [['aggregations', 'permissions'], 1],
          ],
        }),
        updateItem(keys.resource(r.id), {
          add: [
            ['links_version', 2],
            [['aggregations', 'clients'], 1],
            [['scope_holders', sp], 1],
          ],
        }),
      ],
    ]);
    expect((await g.clients.getClientWithGrants(c.id))?.grants).toEqual(new Map([[r.id, new Set([sp])]])); // from the partition
    await g.permissions.revoke(c.id, [{ resource_id: r.id, scopes: [sp] }]);
    expect((await g.clients.getClientWithGrants(c.id))?.grants).toEqual(new Map());
    await g.permissions.grant(c.id, [{ resource_id: r.id, scopes: [sp] }], ACTOR);
    await g.scopes.delete(r.id, sp);
    await g.links.revoke(c.id, [r.id]);
    expect(await grantsFromPartitionOf(g, c.id)).toEqual({});
    expect(await reconcileTokenViews(g.db, g.tableName, g.now)).toEqual({ clients: 1, resources: 0, failed: 0 });
    await expectClientViewOf(g, c.id, {});
  });

  it('a record that cannot be repaired is logged and skipped; the run goes on', async () => {
    const g = await storeFixture('unrepairable');
    await g.tenants.ensureDefault();
    const a = await g.resources.create(newResource(g.tenantId), ACTOR);
    const b = await g.resources.create(newResource(g.tenantId), ACTOR);
    // a's marker held by b (a state no write of ours makes): a's view can never be written.
    await g.db.send(
      new UpdateCommand({
        TableName: g.tableName,
        Key: keys.marker('RESOURCE_ID_URL', g.tenantId, a.resource_metadata.identifier_url),
        UpdateExpression: 'SET target_id = :b REMOVE token_view',
        ExpressionAttributeValues: { ':b': b.id },
      }),
    );
    await g.db.send(
      new UpdateCommand({
        TableName: g.tableName,
        Key: keys.marker('RESOURCE_ID_URL', g.tenantId, b.resource_metadata.identifier_url),
        UpdateExpression: 'REMOVE token_view',
      }),
    );
    expect(await reconcileTokenViews(g.db, g.tableName, g.now)).toEqual({ clients: 0, resources: 1, failed: 1 });
  });

  it('a 50-scope grant (the API maximum) is still one transaction', async () => {
    const g = await storeFixture('onetx');
    const transactions: string[] = [];
    g.db.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand') transactions.push(context.commandName);
        return next(args);
      },
      { step: 'initialize', name: 'countTransactions' },
    );
    const c = await g.clients.create({ tenant_id: g.tenantId, client_name: 'fifty' }, ACTOR);
    const r = await g.resources.create(
      newResource(g.tenantId),
      ACTOR,
      Array.from({ length: 47 }, (_, i) => ({ scope_name: `f${i}` })),
    );
    await g.scopes.create(r.id, { scope_name: 'f47' }, ACTOR);
    await g.scopes.create(r.id, { scope_name: 'f48' }, ACTOR);
    await g.scopes.create(r.id, { scope_name: 'f49' }, ACTOR);
    await g.links.authorize(c.id, [r.id], ACTOR);
    const ids = Object.keys((await g.resources.get(r.id))!.scope_names);
    transactions.length = 0;
    await g.permissions.grant(c.id, [{ resource_id: r.id, scopes: ids }], ACTOR);
    expect(transactions).toHaveLength(1);
    await expectClientViewOf(g, c.id, { [r.id]: Object.fromEntries(ids.map((s) => [s, true as const])) });
  });
});

async function grantsFromPartitionOf(g: StoreFixture, clientId: string): Promise<TokenGrants> {
  const p = (await readClientPartition(g.db, g.tableName, clientId))!;
  const out: TokenGrants = Object.fromEntries([...p.links.keys()].map((r) => [r, {}]));
  for (const x of p.permissions) (out[x.resource_id] ??= {})[x.scope_id] = true;
  return out;
}

async function expectClientViewOf(g: StoreFixture, clientId: string, expected: TokenGrants) {
  const item = (await g.db.send(new GetCommand({ TableName: g.tableName, Key: keys.client(clientId), ConsistentRead: true })))
    .Item as ClientRecord;
  expect(item.token_grants).toEqual(expected);
  expect(item.token_grants_version).toBe(item.links_version);
}
