import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderView } from '#shared/records/identity-provider-record.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { type ExternalProvider, startExternalProvider } from '../support/oauth/external-provider.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { ACCESS_TOKEN_TYPE, EXCHANGE, linkedUserId, postToken, registerProvider, uniqueEmail } from '../support/oauth/token-exchange.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { createTenant, managementCaller } from '../support/service/management-api.ts';

/**
 * The tenant a token exchange works in (docs/contract.md §7.7, §4) in multi-tenant mode: the
 * client's; a global client names it with the `tenant_id` header (default: the default tenant).
 * The provider is registered in one tenant only, so where the exchange looked is seen in its answer.
 */
let svc: TestService;
let external: ExternalProvider;
let tenantId: string;
let idp: IdentityProviderView;
let globalId: string;
let boundId: string;

beforeAll(async () => {
  external = await startExternalProvider();
  svc = await startTestService({ env: { MULTI_TENANT: 'true' } });
  tenantId = await createTenant(svc.stack.runtime);
  idp = await registerProvider(svc, external, { provider_name: 'corp' }, tenantId);
  const call = managementCaller(svc.url, await svc.managementToken());
  const make = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await call('POST', '/clients', { body, headers });
    if (res.status !== 201) throw new Error(`client: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  const metadata = { grant_types: ['token_exchange'] };
  globalId = await make({ client_name: 'global spa', is_public: true, is_global: true, client_metadata: metadata });
  boundId = await make(
    { client_name: 'tenant spa', is_public: true, is_global: false, client_metadata: metadata },
    { tenant_id: tenantId },
  );
});
afterAll(async () => {
  await svc?.stop();
  await external?.stop();
});

const person = async () => {
  const sub = `sub-${crypto.randomUUID()}`;
  return { sub, idToken: await external.mintIdToken({ sub, email: uniqueEmail(), email_verified: true }) };
};
const exchange = (clientId: string, subject_token: string, headers: Record<string, string> = {}) =>
  postToken(svc, { grant_type: EXCHANGE, client_id: clientId, subject_token, subject_token_type: 'corp' }, { headers });
const noProvider = {
  error: 'invalid_request',
  error_description: 'body.subject_token_type: names no enabled identity provider of this tenant.',
};

describe('the tenant of a token exchange in multi-tenant mode (docs/contract.md §7.7)', () => {
  it('a global client works in the tenant its tenant_id header names; the user is created there, and the token says so', async () => {
    const { sub, idToken } = await person();
    const res = await exchange(globalId, idToken, { tenant_id: tenantId });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.issued_token_type).toBe(ACCESS_TOKEN_TYPE);
    const userId = await linkedUserId(svc, idp.id, sub);
    expect(userId).toEqual(expect.any(String));
    expect((await storedItem(svc, keys.user(userId!)))?.tenant_id).toBe(tenantId);
    const jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(res.body.access_token, jwks, { issuer: svc.url, typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: userId, tenant_id: tenantId, client_id: globalId });
  });

  it('a global client without the header works in the default tenant, where this provider is unknown', async () => {
    const { sub, idToken } = await person();
    const res = await exchange(globalId, idToken);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject(noProvider);
    expect(await linkedUserId(svc, idp.id, sub)).toBeUndefined();
    const other = await exchange(globalId, idToken, { tenant_id: DEFAULT_TENANT_ID });
    expect(other.body).toMatchObject(noProvider);
    const malformed = await exchange(globalId, idToken, { tenant_id: 'not-a-uuid' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error_description).toMatch(/^header\.tenant_id: /);
  });

  it("a tenant's own client works in its tenant; naming another tenant is refused", async () => {
    const { sub, idToken } = await person();
    const refused = await exchange(boundId, idToken, { tenant_id: DEFAULT_TENANT_ID });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: 'invalid_request',
      error_description: 'header.tenant_id: this client may only act on its own tenant.',
    });
    expect(await linkedUserId(svc, idp.id, sub)).toBeUndefined();
    const res = await exchange(boundId, idToken);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const userId = await linkedUserId(svc, idp.id, sub);
    expect((await storedItem(svc, keys.user(userId!)))?.tenant_id).toBe(tenantId);
  });

  it("our own token of one tenant is not exchanged in another: the global client's default tenant refuses it", async () => {
    const { idToken } = await person();
    const first = await exchange(globalId, idToken, { tenant_id: tenantId });
    expect(first.status).toBe(200);
    const own = (headers: Record<string, string>) =>
      postToken(
        svc,
        { grant_type: EXCHANGE, client_id: globalId, subject_token: first.body.access_token, subject_token_type: ACCESS_TOKEN_TYPE },
        { headers },
      );
    expect((await own({})).body).toMatchObject({ error: 'invalid_request' });
    const same = await own({ tenant_id: tenantId });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
  });
});
