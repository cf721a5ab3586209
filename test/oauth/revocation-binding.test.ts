import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';
import { createTenant, managementCaller } from '../support/service/management-api.ts';

/**
 * Revocation and `iat`, over HTTP against the local service in multi-tenant mode:
 * a revocation is bound to what verified the token and to its client (docs/contract.md §8), so a token can
 * only ever revoke itself; /revoke does not tell a caller about tokens of tenants it cannot see
 * (RFC 7009 §2.2); an HS256 token "issued" in the future is inactive.
 */
let svc: TestService;
let call: ReturnType<typeof managementCaller>;
let tenantB: string;

beforeAll(async () => {
  svc = await startTestService({ env: { MULTI_TENANT: 'true' } });
  call = managementCaller(svc.url, await svc.managementToken());
  tenantB = await createTenant(svc.stack.runtime, 'tenant-b');
});
afterAll(async () => svc?.stop());

const form = (p: Record<string, string>) => new URLSearchParams(p);
const post = async (path: string, params: Record<string, string>, authorization: string) => {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
    body: form(params),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};
const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, any>;
const defaultBasic = () => basicAuth(svc.clientId, svc.clientSecret);
const introspect = (token: string) => post('/introspect', { token }, defaultBasic());

/** A non-global confidential client of `tenantId`, made by the Default Client. */
async function client(tenantId: string | undefined, name: string) {
  const made = await call('POST', '/clients', {
    body: { client_name: name, is_global: false, ...(tenantId ? { tenant_id: tenantId } : {}) },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { id: made.body.id as string, basic: basicAuth(made.body.id, made.body.client_secret) };
}

/** A Resource of `tenantId` (HS256 with `secret` when given), with the given clients authorized on it. */
async function resource(tenantId: string | undefined, clientIds: string[], secret?: string) {
  const identifier = `https://${randomUUID()}.example.com/api`;
  const metadata = { identifier_url: identifier, ...(secret ? { signing_algorithm: 'HS256', signing_secret: secret } : {}) };
  const made = await call('POST', '/resources', {
    body: { resource_type: 'api', resource_name: 'r', resource_metadata: metadata },
    ...(tenantId ? { headers: { tenant_id: tenantId } } : {}),
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  for (const id of clientIds)
    expect((await call('POST', `/clients/${id}/resources`, { body: { resources: [made.body.id] } })).status).toBe(204);
  return { id: made.body.id as string, identifier, tenantId: made.body.tenant_id as string };
}

async function tokenFor(basic: string, audience: string): Promise<string> {
  const res = await post('/token', { grant_type: 'client_credentials', audience }, basic);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.access_token as string;
}

/** What someone holding an HS256 Resource's secret can sign: any claims, any jti. */
function forge(secret: string, claims: { client_id: string; tenant_id: string; aud: string; jti: string; iat?: number }) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: claims.client_id, tenant_id: claims.tenant_id, scope: '', jti: claims.jti })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .setIssuer(svc.url)
    .setSubject(claims.client_id)
    .setAudience(claims.aud)
    .setIssuedAt(claims.iat ?? now)
    .setNotBefore(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(secret));
}

describe("a revocation is bound to the token's verifier and client (docs/contract.md §8)", () => {
  for (const where of ['another tenant', 'the same tenant'] as const) {
    it(`a token forged under an HS256 Resource with the jti of the Default Client's management token does not revoke it (${where})`, async () => {
      const tenant = where === 'another tenant' ? tenantB : undefined;
      const attacker = await client(tenant, `attacker in ${where}`);
      const secret = `secret-the-attacker-knows-${randomUUID()}`;
      const hs = await resource(tenant, [attacker.id], secret);
      const victim = await svc.managementToken('read:clients');
      const victimJti = payloadOf(victim).jti as string;

      const forged = await forge(secret, { client_id: attacker.id, tenant_id: hs.tenantId, aud: hs.identifier, jti: victimJti });
      // The forged token is a valid token of the attacker's (its own client, its own Resource)...
      expect(await introspect(forged)).toEqual({
        status: 200,
        body: expect.objectContaining({ active: true, client_id: attacker.id, jti: victimJti }),
      });
      // ...so revoking it succeeds, and ends exactly that token.
      expect(await post('/revoke', { token: forged }, attacker.basic)).toEqual({ status: 200, body: undefined });
      expect((await introspect(forged)).body).toEqual({ active: false });

      // The victim's token is untouched: the management API and introspection still take it.
      expect((await call('GET', '/clients?limit=1', { token: victim })).status).toBe(200);
      expect((await introspect(victim)).body).toMatchObject({ active: true, client_id: svc.clientId, jti: victimJti });
      // And the victim can still revoke its own token: it is then refused everywhere.
      expect((await post('/revoke', { token: victim }, defaultBasic())).status).toBe(200);
      expect((await call('GET', '/clients?limit=1', { token: victim })).status).toBe(401);
      expect((await introspect(victim)).body).toEqual({ active: false });

      // Stored: one entry per binding under the jti, each naming its own client.
      const { Items } = await svc.stack.runtime.db.send(
        new QueryCommand({
          TableName: svc.stack.tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.revokedTokenPartition(victimJti) },
        }),
      );
      expect(Items!.map((i) => [i.client_id, i.verifier]).sort()).toEqual(
        [
          [attacker.id, `resource:${hs.tenantId}:${hs.identifier}`],
          [svc.clientId, `key:${JSON.parse(Buffer.from(victim.split('.')[0]!, 'base64url').toString()).kid}`],
        ].sort(),
      );
    });
  }

  it("a jti already revoked under a Resource as another client's token is not recorded again for a forger: 400 unauthorized_client", async () => {
    const owner = await client(undefined, 'owner');
    const forger = await client(undefined, 'forger');
    const secret = `shared-hs256-secret-${randomUUID()}`;
    const hs = await resource(undefined, [owner.id, forger.id], secret);
    const genuine = await tokenFor(owner.basic, hs.identifier);
    expect((await post('/revoke', { token: genuine }, owner.basic)).status).toBe(200);

    const forged = await forge(secret, { client_id: forger.id, tenant_id: hs.tenantId, aud: hs.identifier, jti: payloadOf(genuine).jti });
    const refused = await post('/revoke', { token: forged }, forger.basic);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'unauthorized_client', code: 'unauthorized_client' });
    // Nothing recorded for the forger's token: it is still active; the owner's stays revoked.
    expect((await introspect(forged)).body).toMatchObject({ active: true, client_id: forger.id });
    expect((await introspect(genuine)).body).toEqual({ active: false });
  });
});

describe('/revoke does not reveal tokens of tenants the caller cannot see (RFC 7009 §2.2)', () => {
  it('a tenant-B token posted by a default-tenant client is "unknown": 200, as for an invalid token, and it stays active', async () => {
    const caller = await client(undefined, 'tenant A caller');
    const owner = await client(tenantB, 'tenant B owner');
    const api = await resource(tenantB, [owner.id]);
    const foreign = await tokenFor(owner.basic, api.identifier);

    const valid = await post('/revoke', { token: foreign }, caller.basic);
    const invalid = await post('/revoke', { token: `${foreign.slice(0, -4)}AAAA` }, caller.basic);
    expect(valid).toEqual({ status: 200, body: undefined });
    expect(valid).toEqual(invalid);
    // Nothing was revoked, and /introspect tells the caller no more than /revoke did.
    expect((await introspect(foreign)).body).toMatchObject({ active: true, client_id: owner.id });
    expect((await post('/introspect', { token: foreign }, caller.basic)).body).toEqual({ active: false });
  });

  it("a token of the caller's own tenant issued to another client stays 400 unauthorized_client (RFC 7009 §2.1)", async () => {
    const caller = await client(tenantB, 'tenant B caller');
    const owner = await client(tenantB, 'tenant B owner 2');
    const api = await resource(tenantB, [owner.id]);
    const sibling = await tokenFor(owner.basic, api.identifier);
    const res = await post('/revoke', { token: sibling }, caller.basic);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'unauthorized_client', error_description: 'body.token: was not issued to this client.' });
    expect((await introspect(sibling)).body).toMatchObject({ active: true });
  });
});

describe('iat more than 60 s in the future makes a token inactive (docs/contract.md §8)', () => {
  it('an HS256 token "issued" an hour from now introspects inactive and revokes nothing; 30 s ahead is still fine', async () => {
    const holder = await client(undefined, 'secret holder');
    const secret = `hs-secret-${randomUUID()}`;
    const hs = await resource(undefined, [holder.id], secret);
    const now = Math.floor(Date.now() / 1000);
    const future = await forge(secret, {
      client_id: holder.id,
      tenant_id: hs.tenantId,
      aud: hs.identifier,
      jti: randomUUID(),
      iat: now + 3600,
    });
    expect(await introspect(future)).toEqual({ status: 200, body: { active: false } });
    expect((await post('/tokeninfo', { token: future }, holder.basic)).body).toEqual({ active: false });
    expect(await post('/revoke', { token: future }, holder.basic)).toEqual({ status: 200, body: undefined });

    const skewed = await forge(secret, {
      client_id: holder.id,
      tenant_id: hs.tenantId,
      aud: hs.identifier,
      jti: randomUUID(),
      iat: now + 30,
    });
    expect((await introspect(skewed)).body).toMatchObject({ active: true });
  });
});
