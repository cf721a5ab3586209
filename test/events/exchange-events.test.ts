import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderView } from '#shared/records/identity-provider-record.ts';
import { eventsOf, expectEvent, expectNoSecretStored, TEST_AGENT } from '../support/events/flow-events.ts';
import { type ExternalProvider, startExternalProvider } from '../support/oauth/external-provider.ts';
import { ACCESS_TOKEN_TYPE, EXCHANGE, linkedUserId, postToken, registerProvider, uniqueEmail } from '../support/oauth/token-exchange.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';

/**
 * `token.exchanged` (docs/events.md "Catalogue"), end to end at /token with a real external OpenID
 * provider (node-oidc-provider on loopback): one event per token issued, naming the kind of subject
 * token, the provider and the audience asked for, never a token; a refused exchange records none.
 */
let svc: TestService;
let external: ExternalProvider;
let idp: IdentityProviderView;
let publicId: string;
let identifier: string;

beforeAll(async () => {
  external = await startExternalProvider();
  svc = await startTestService();
  const call = managementCaller(svc.url, await svc.managementToken());
  idp = await registerProvider(svc, external, { provider_name: 'acme-events' });
  const client = await call('POST', '/clients', {
    body: { client_name: 'exchange spa', is_public: true, client_metadata: { grant_types: ['token_exchange'] } },
  });
  publicId = client.body.id;
  identifier = `https://events-${crypto.randomUUID()}.example.com/`;
  const resource = await call('POST', '/resources', {
    body: { resource_type: 'api', resource_name: 'events api', resource_metadata: { identifier_url: identifier } },
  });
  expect(resource.status).toBe(201);
  await call('POST', `/resources/${resource.body.id}/scopes`, { body: { scope_name: 'read:a' } });
});
afterAll(async () => {
  await svc?.stop();
  await external?.stop();
});

const runtime = () => svc.stack.runtime;
const exchange = (params: Record<string, string>) =>
  postToken(svc, { grant_type: EXCHANGE, client_id: publicId, ...params }, { headers: { 'user-agent': TEST_AGENT } });

describe('token.exchanged', () => {
  it('a provider ID token, then our own access token for a Resource: one event each, no token in either', async () => {
    const sub = `sub-${crypto.randomUUID()}`;
    const idToken = await external.mintIdToken({ sub, email: uniqueEmail(), email_verified: true });
    const first = await exchange({ subject_token: idToken, subject_token_type: 'acme-events', scope: 'openid' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const userId = (await linkedUserId(svc, idp.id, sub))!;
    const retention = runtime().config.events.retentionDays;
    let events = await eventsOf(runtime(), idp.tenant_id, 'token.exchanged', userId);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'token.exchanged',
        tenant_id: idp.tenant_id,
        client_id: publicId,
        user_id: userId,
        details: { subject_token_kind: 'external', provider: 'acme-events' },
      },
      retention,
    );

    const second = await exchange({ subject_token: first.body.access_token, subject_token_type: ACCESS_TOKEN_TYPE, audience: identifier });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    events = await eventsOf(runtime(), idp.tenant_id, 'token.exchanged', userId);
    expect(events).toHaveLength(2);
    expectEvent(
      events[1],
      {
        type: 'token.exchanged',
        tenant_id: idp.tenant_id,
        client_id: publicId,
        user_id: userId,
        details: { subject_token_kind: 'own', audience: identifier },
      },
      retention,
    );
    await expectNoSecretStored(runtime(), idp.tenant_id, [idToken, first.body.access_token, second.body.access_token]);
  });

  it('a refused exchange (a scope the subject token does not hold) records nothing', async () => {
    const sub = `sub-${crypto.randomUUID()}`;
    const idToken = await external.mintIdToken({ sub, email: uniqueEmail(), email_verified: true });
    const first = await exchange({ subject_token: idToken, subject_token_type: 'acme-events', scope: 'openid' });
    expect(first.status).toBe(200);
    const userId = (await linkedUserId(svc, idp.id, sub))!;
    const wider = await exchange({ subject_token: first.body.access_token, subject_token_type: ACCESS_TOKEN_TYPE, scope: 'openid read:a' });
    expect(wider).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    expect(await eventsOf(runtime(), idp.tenant_id, 'token.exchanged', userId)).toHaveLength(1);
  });
});
