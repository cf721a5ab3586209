import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillIdentifierClaims } from '#shared/bootstrap/backfill-identifier-claims.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import type { Key } from '#shared/store/core/writes.ts';
import { stageIdentifierKey } from '#shared/store/resources/identifier-claim.ts';
import { forgetClient } from '#shared/wiring/token-path/token-path-records.ts';
import { DEFAULT_TENANT_ID, type ResourcesFixture, resourcesFixture } from '../../support/management/resources-fixture.ts';
import { tenancyFixture } from '../../support/management/resources-tenancy.ts';

/**
 * A Resource's identifier_url is unique across the whole stage (docs/management-resources.md
 * "Identifier uniqueness", docs/tenants.md "Tokens across tenants"): every tenant's tokens share
 * one `iss` and one JWKS, so a token whose `aud` is tenant A's identifier must only ever come
 * from tenant A. Two tenants made over the Tenants API, each with a non-global admin client.
 */
let fx: ResourcesFixture;
let tenantA: string;
let tenantB: string;
let adminA: { client: { id: string }; token: string };
let adminB: { client: { id: string }; token: string };

const TAKEN = 'body.resource_metadata.identifier_url: a resource with this identifier_url already exists.';

beforeAll(async () => {
  fx = await resourcesFixture({ MULTI_TENANT: 'true' });
  const made = await Promise.all(
    ['stage-ids-a', 'stage-ids-b'].map((tenant_name) =>
      fx.call('POST', '/tenants', { body: { tenant_name: `${tenant_name}-${fx.audience()}` } }),
    ),
  );
  for (const res of made) if (res.status !== 201) throw new Error(`tenant: ${res.status} ${JSON.stringify(res.body)}`);
  [tenantA, tenantB] = made.map((res) => res.body.id as string) as [string, string];
  const tenancy = tenancyFixture(fx);
  adminA = await tenancy.tenantAdmin(tenantA);
  adminB = await tenancy.tenantAdmin(tenantB);
});
afterAll(async () => fx?.stop());

const as = (admin: { token: string }) => (method: string, path: string, body?: unknown) =>
  fx.call(method, path, { token: admin.token, ...(body !== undefined ? { body } : {}) });
const asA = (method: string, path: string, body?: unknown) => as(adminA)(method, path, body);
const asB = (method: string, path: string, body?: unknown) => as(adminB)(method, path, body);

const newResource = (identifier_url: string, resource_name = `API ${identifier_url}`) => ({
  resource_type: 'api',
  resource_name,
  resource_metadata: { identifier_url },
});

async function stored(key: Key): Promise<Record<string, any> | undefined> {
  const { runtime } = fx.svc.stack;
  const out = await runtime.db.send(new GetCommand({ TableName: runtime.config.tableName, Key: key, ConsistentRead: true }));
  return out.Item;
}
const tenantMarker = (tenantId: string, url: string) => stored(keys.marker('RESOURCE_ID_URL', tenantId, url));
const stageMarker = (url: string) => stored(stageIdentifierKey(url));

async function totalCount(call: typeof asA): Promise<number> {
  const res = await call('GET', '/resources?limit=1&total_count=true');
  expect(res.status).toBe(200);
  return res.body.total_count as number;
}

async function expectTaken(res: { status: number; headers: Headers; body: any }) {
  expect(res.status).toBe(409);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toEqual({ code: 'conflict', message: TAKEN });
}

describe('identifier_url is unique across tenants', () => {
  it("tenant B's non-global client cannot create a Resource with tenant A's identifier: 409, nothing stored", async () => {
    const url = fx.audience();
    const a = await asA('POST', '/resources', newResource(url));
    expect(a.status).toBe(201);
    expect(a.body.tenant_id).toBe(tenantA);
    const before = await totalCount(asB);

    await expectTaken(await asB('POST', '/resources', newResource(url, 'stolen')));

    expect(await totalCount(asB)).toBe(before);
    const inB = await asB('GET', '/resources?limit=100');
    expect((inB.body.items as any[]).some((r) => r.resource_metadata.identifier_url === url)).toBe(false);
    expect(await tenantMarker(tenantB, url)).toBeUndefined();
    expect(await stageMarker(url)).toMatchObject({ target_id: a.body.id, tenant_id: tenantA, type: 'UniqueMarker' });
    expect((await tenantMarker(tenantA, url))?.target_id).toBe(a.body.id);
  });

  it("tenant B cannot move one of its own Resources to tenant A's identifier: PATCH 409, the resource and its markers unchanged", async () => {
    const urlA = fx.audience();
    const urlB = fx.audience();
    expect((await asA('POST', '/resources', newResource(urlA))).status).toBe(201);
    const own = await asB('POST', '/resources', newResource(urlB));
    expect(own.status).toBe(201);

    await expectTaken(await asB('PATCH', `/resources/${own.body.id}`, { resource_metadata: { identifier_url: urlA } }));

    const after = await asB('GET', `/resources/${own.body.id}`);
    expect(after.status).toBe(200);
    expect(after.body.resource_metadata.identifier_url).toBe(urlB);
    expect(after.body.version).toBe(own.body.version);
    expect((await tenantMarker(tenantB, urlB))?.target_id).toBe(own.body.id);
    expect(await stageMarker(urlB)).toMatchObject({ target_id: own.body.id, tenant_id: tenantB });
    expect(await tenantMarker(tenantB, urlA)).toBeUndefined();
    expect((await stageMarker(urlA))?.tenant_id).toBe(tenantA);
  });

  it('a move frees the old identifier stage-wide and claims the new one', async () => {
    const from = fx.audience();
    const to = fx.audience();
    const r = await asB('POST', '/resources', newResource(from));
    expect(r.status).toBe(201);
    const moved = await asB('PATCH', `/resources/${r.body.id}`, { resource_metadata: { identifier_url: to } });
    expect(moved.status).toBe(200);
    expect(moved.body.resource_metadata.identifier_url).toBe(to);
    expect(await stageMarker(from)).toBeUndefined();
    expect(await tenantMarker(tenantB, from)).toBeUndefined();
    expect(await stageMarker(to)).toMatchObject({ target_id: r.body.id, tenant_id: tenantB });
    // The freed identifier is tenant A's to take now.
    const a = await asA('POST', '/resources', newResource(from));
    expect(a.status).toBe(201);
    expect(await stageMarker(from)).toMatchObject({ target_id: a.body.id, tenant_id: tenantA });
  });

  it('two tenants racing to create one identifier: exactly one 201, its markers only', async () => {
    const url = fx.audience();
    const calls = Array.from({ length: 8 }, (_, i) => (i % 2 ? asA : asB)('POST', '/resources', newResource(url, `racer ${i}`)));
    const results = await Promise.all(calls);
    const won = results.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) await expectTaken(r);
    const winner = won[0]!.body;
    const loser = winner.tenant_id === tenantA ? tenantB : tenantA;
    expect(await stageMarker(url)).toMatchObject({ target_id: winner.id, tenant_id: winner.tenant_id });
    expect((await tenantMarker(winner.tenant_id, url))?.target_id).toBe(winner.id);
    expect(await tenantMarker(loser, url)).toBeUndefined();
  });

  it('a deleted Resource frees its identifier stage-wide', async () => {
    const url = fx.audience();
    const a = await asA('POST', '/resources', newResource(url));
    expect(a.status).toBe(201);
    const gone = await asA('DELETE', `/resources/${a.body.id}`);
    expect(gone.status).toBe(204);
    expect(await stageMarker(url)).toBeUndefined();
    expect(await tenantMarker(tenantA, url)).toBeUndefined();
    const b = await asB('POST', '/resources', newResource(url));
    expect(b.status).toBe(201);
    expect(b.body.tenant_id).toBe(tenantB);
    expect(await stageMarker(url)).toMatchObject({ target_id: b.body.id, tenant_id: tenantB });
  });

  it("the default tenant's Resource with only its per-tenant marker (as data from before) still blocks every other tenant; bootstrap backfills its marker", async () => {
    const { runtime } = fx.svc.stack;
    const url = fx.audience();
    const old = await fx.createResource({ resource_metadata: { identifier_url: url } });
    expect(old.tenant_id).toBe(DEFAULT_TENANT_ID);
    await runtime.db.send(new DeleteCommand({ TableName: runtime.config.tableName, Key: stageIdentifierKey(url) }));
    expect(await stageMarker(url)).toBeUndefined();

    await expectTaken(await asB('POST', '/resources', newResource(url)));
    const own = await asB('POST', '/resources', newResource(fx.audience()));
    expect(own.status).toBe(201);
    await expectTaken(await asB('PATCH', `/resources/${own.body.id}`, { resource_metadata: { identifier_url: url } }));
    expect(await tenantMarker(tenantB, url)).toBeUndefined();
    expect(await stageMarker(url)).toBeUndefined();

    // Bootstrap (every deploy): the missing marker is written once; a second run writes nothing.
    const first = await backfillIdentifierClaims(runtime.db, runtime.config.tableName, runtime.now);
    expect(first).toEqual({ claimed: 1, failed: 0 });
    expect(await stageMarker(url)).toMatchObject({ target_id: old.id, tenant_id: DEFAULT_TENANT_ID, type: 'UniqueMarker' });
    expect(await backfillIdentifierClaims(runtime.db, runtime.config.tableName, runtime.now)).toEqual({ claimed: 0, failed: 0 });

    // A resource without the stage-wide marker is still deleted, and its identifier freed.
    await runtime.db.send(new DeleteCommand({ TableName: runtime.config.tableName, Key: stageIdentifierKey(url) }));
    expect((await fx.call('DELETE', `/resources/${old.id}`)).status).toBe(204);
    expect(await tenantMarker(DEFAULT_TENANT_ID, url)).toBeUndefined();
    expect((await asB('POST', '/resources', newResource(url))).status).toBe(201);
  });
});

describe('the attack end to end: a resource server validating as RFC 9068 §4 says', () => {
  it("accepts tenant A's client's token; tenant B's client can obtain no token it accepts", async () => {
    const jwks = createRemoteJWKSet(new URL(`${fx.svc.url}/.well-known/jwks.json`));
    const urlA = fx.audience();
    const apiA = await asA('POST', '/resources', newResource(urlA));
    expect(apiA.status).toBe(201);
    const readA = await asA('POST', `/resources/${apiA.body.id}/scopes`, { scope_name: 'read' });
    expect(readA.status).toBe(201);
    const clientA = await fx.createClient({ tenant_id: tenantA, is_global: false });
    await fx.authorize(apiA.body.id, [clientA.id]);
    await fx.grant(clientA.id, apiA.body.id, [readA.body.id]);

    // RFC 9068 §4: signature against the issuer's keys, `iss`, `aud` = this API's identifier, `typ` at+jwt, `exp`.
    const rsAccepts = (jwt: string) => jwtVerify(jwt, jwks, { issuer: fx.svc.url, audience: urlA, typ: 'at+jwt' });

    const tokenA = await fx.token(clientA.id, clientA.secret, urlA, 'read');
    expect(tokenA.status).toBe(200);
    const { payload } = await rsAccepts(tokenA.body.access_token);
    expect(payload).toMatchObject({ aud: urlA, tenant_id: tenantA, scope: 'read', client_id: clientA.id });

    // Tenant B: its own Resource named like A's is refused, so B's clients have nothing with A's identifier.
    await expectTaken(await asB('POST', '/resources', newResource(urlA)));
    const apiB = await asB('POST', '/resources', newResource(fx.audience()));
    expect(apiB.status).toBe(201);
    const clientB = await fx.createClient({ tenant_id: tenantB, is_global: false });
    await fx.authorize(apiB.body.id, [clientB.id]);
    forgetClient(fx.svc.stack.runtime, clientB.id);

    // B asks for A's identifier: the answer /token gives for an unknown audience (RFC 8707 §2).
    const asked = await fx.token(clientB.id, clientB.secret, urlA);
    expect(asked.status).toBe(400);
    expect(asked.headers.get('cache-control')).toBe('no-store');
    expect(asked.body.error).toBe('invalid_target');
    expect(JSON.stringify(asked.body)).not.toContain(urlA);
    const unknown = await fx.token(clientB.id, clientB.secret, fx.audience());
    expect(asked.body).toEqual(unknown.body);

    // What B can get (a token for its own API) is no token A's resource server accepts.
    const tokenB = await fx.token(clientB.id, clientB.secret, apiB.body.resource_metadata.identifier_url);
    expect(tokenB.status).toBe(200);
    await expect(rsAccepts(tokenB.body.access_token)).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' });
  });
});
