import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResourcesFixture, resourcesFixture } from '../../support/management/resources-fixture.ts';

/**
 * What a Resource's settings do to its tokens (docs/contract.md §5.1): `signing_algorithm` (ES256, RS256
 * from the JWKS; HS256 with the resource's own secret), `token_lifetime`, `rbac_enabled`, and that
 * every management change is seen by the very next token. Verified with jose, not our own code.
 */
let fx: ResourcesFixture;
let jwks: ReturnType<typeof createRemoteJWKSet>;
beforeAll(async () => {
  fx = await resourcesFixture();
  jwks = createRemoteJWKSet(new URL(`${fx.svc.url}/.well-known/jwks.json`));
});
afterAll(async () => fx?.stop());

const SECRET = 'resource-own-hs256-secret-0123456789abcdef';

/** A resource with scopes `read` and `write`, authorized to the Default Client with both granted (all over HTTP but the grant). */
async function resourceForDefaultClient(metadata: Record<string, unknown> = {}) {
  const r = await fx.createResource({ resource_metadata: metadata });
  const read = await fx.createScope(r.id, 'read');
  const write = await fx.createScope(r.id, 'write');
  await fx.authorize(r.id, [fx.svc.clientId]);
  await fx.grant(fx.svc.clientId, r.id, [read.id, write.id]);
  return { r, audience: r.resource_metadata.identifier_url as string };
}

const issue = async (audience: string, scope?: string) => {
  const res = await fx.token(fx.svc.clientId, fx.svc.clientSecret, audience, scope);
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { access_token: string; expires_in: number; token_type: string; scope?: string };
};

describe('signing_algorithm (docs/contract.md §5.1)', () => {
  it('HS256: created with a secret, the Default Client authorized and granted, all over HTTP; the token verifies with jose and that secret', async () => {
    const r = await fx.createResource({ resource_metadata: { signing_algorithm: 'HS256', signing_secret: SECRET } });
    const read = await fx.createScope(r.id, 'read');
    await fx.createScope(r.id, 'write');
    await fx.authorize(r.id, [fx.svc.clientId]);
    const granted = await fx.call('POST', `/clients/${fx.svc.clientId}/permissions`, {
      body: { permissions: [{ resource_id: r.id, scopes: [read.id] }] },
    });
    expect(granted.status).toBe(204);
    const audience = r.resource_metadata.identifier_url as string;
    const token = await issue(audience, 'read');
    expect(decodeProtectedHeader(token.access_token)).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    const { payload } = await jwtVerify(token.access_token, new TextEncoder().encode(SECRET), {
      algorithms: ['HS256'],
      issuer: fx.svc.url,
      audience,
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({ sub: fx.svc.clientId, client_id: fx.svc.clientId, scope: 'read', aud: audience });
    // a wrong secret does not verify
    await expect(jwtVerify(token.access_token, new TextEncoder().encode(`${SECRET}x`), { algorithms: ['HS256'] })).rejects.toThrow();
  });

  it('HS256: a rotated secret signs the very next token', async () => {
    const { r, audience } = await resourceForDefaultClient({ signing_algorithm: 'HS256', signing_secret: SECRET });
    await issue(audience); // warms the resource cache
    const rotated = `${SECRET}-rotated`;
    expect((await fx.call('PATCH', `/resources/${r.id}`, { body: { resource_metadata: { signing_secret: rotated } } })).status).toBe(200);
    const token = await issue(audience);
    await expect(jwtVerify(token.access_token, new TextEncoder().encode(rotated), { algorithms: ['HS256'] })).resolves.toMatchObject({
      payload: { aud: audience },
      protectedHeader: { alg: 'HS256' },
    });
  });

  it('RS256: the token verifies against /.well-known/jwks.json', async () => {
    const { audience } = await resourceForDefaultClient({ signing_algorithm: 'RS256' });
    const token = await issue(audience);
    const { payload, protectedHeader } = await jwtVerify(token.access_token, jwks, {
      algorithms: ['RS256'],
      issuer: fx.svc.url,
      audience,
      typ: 'at+jwt',
    });
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload.scope).toBe('read write');
  });

  it('ES256 by default, and switching the algorithm applies to the next token', async () => {
    const { r, audience } = await resourceForDefaultClient();
    const es = await issue(audience);
    await jwtVerify(es.access_token, jwks, { algorithms: ['ES256'], audience });
    await fx.call('PATCH', `/resources/${r.id}`, { body: { resource_metadata: { signing_algorithm: 'RS256' } } });
    const rs = await issue(audience);
    expect(decodeProtectedHeader(rs.access_token).alg).toBe('RS256');
    await jwtVerify(rs.access_token, jwks, { algorithms: ['RS256'], audience });
  });
});

describe('token_lifetime and rbac_enabled', () => {
  it('token_lifetime is expires_in and exp - iat; a change applies to the next token', async () => {
    const { r, audience } = await resourceForDefaultClient({ token_lifetime: 120 });
    const first = await issue(audience);
    expect(first.expires_in).toBe(120);
    const { payload } = await jwtVerify(first.access_token, jwks, { audience });
    expect(payload.exp! - payload.iat!).toBe(120);
    await fx.call('PATCH', `/resources/${r.id}`, { body: { resource_metadata: { token_lifetime: 86_400 } } });
    const second = await issue(audience);
    expect(second.expires_in).toBe(86_400);
    expect(fx.claimsOf(second.access_token).exp - fx.claimsOf(second.access_token).iat).toBe(86_400);
  });

  it('rbac_enabled adds the permissions claim (docs/contract.md §5.1)', async () => {
    const { r, audience } = await resourceForDefaultClient();
    expect(fx.claimsOf((await issue(audience)).access_token)).not.toHaveProperty('permissions');
    await fx.call('PATCH', `/resources/${r.id}`, { body: { resource_metadata: { rbac_enabled: true } } });
    expect(fx.claimsOf((await issue(audience, 'write')).access_token).permissions).toEqual(['write']);
  });
});

describe('management changes reach /token at once', () => {
  it('an audience asked for before the resource existed works right after it is created', async () => {
    const audience = fx.audience();
    expect((await fx.token(fx.svc.clientId, fx.svc.clientSecret, audience)).body.error).toBe('invalid_target');
    const { audience: same } = await resourceForDefaultClient({ identifier_url: audience });
    expect(same).toBe(audience);
    expect((await issue(audience)).access_token).toEqual(expect.any(String));
  });

  it('moving identifier_url moves the audience: the old one is refused, the new one is the aud', async () => {
    const { r, audience } = await resourceForDefaultClient();
    await issue(audience);
    const next = fx.audience();
    await fx.call('PATCH', `/resources/${r.id}`, { body: { resource_metadata: { identifier_url: next } } });
    expect((await fx.token(fx.svc.clientId, fx.svc.clientSecret, audience)).body.error).toBe('invalid_target');
    expect(fx.claimsOf((await issue(next)).access_token).aud).toBe(next);
  });

  it('a new scope granted is issuable at once; a revoked link is refused at once', async () => {
    const { r, audience } = await resourceForDefaultClient();
    const admin = await fx.createScope(r.id, 'admin');
    await fx.grant(fx.svc.clientId, r.id, [admin.id]);
    expect(fx.claimsOf((await issue(audience, 'admin')).access_token).scope).toBe('admin');
    expect((await fx.call('DELETE', `/resources/${r.id}/clients`, { body: { clients: [fx.svc.clientId] } })).status).toBe(204);
    expect((await fx.token(fx.svc.clientId, fx.svc.clientSecret, audience)).body.error).toBe('invalid_target');
  });
});
