import { randomUUID } from 'node:crypto';
import { identityProvidersCollection } from '#shared/lists/collections/identity-providers.ts';
import {
  CreateIdentityProviderBody,
  IdentityProviderPath,
  IdentityProvidersPath,
  UpdateIdentityProviderBody,
} from '#shared/management/identity-providers/identity-provider-body-schemas.ts';
import { identityProviderListQuery, identityProviderRecordQuery } from '#shared/management/identity-providers/identity-provider-request.ts';
import { type FuzzRoute, fuzzArea, M } from '../../support/fuzz/fuzz-support.ts';

/**
 * docs/design.md §3.12 over the Tenant Identity Providers endpoints (docs/federation.md "Identity
 * providers"): whatever the body, query, path and headers, in single- and multi-tenant mode, never a
 * 5xx, and every 4xx (and the SAML 501) a JSON `{code, message}`.
 */
const P = `${M}/tenants/{tenant_id}/identity-providers`;
const providers = { collection: identityProvidersCollection, query: identityProviderRecordQuery };

const fit = () => {
  const n = randomUUID().slice(0, 8);
  return { provider_name: `fit-${n}`, provider_type: 'oidc', issuer: `https://fit-${n}.example.com`, client_id: `rp-${n}` };
};

const update = (method: 'PATCH' | 'PUT'): FuzzRoute => ({
  route: `${method} ${P}/{provider_id}`,
  path: IdentityProviderPath,
  body: UpdateIdentityProviderBody,
  ...providers,
  fitting: () => [{ provider_name: `renamed-${randomUUID().slice(0, 8)}` }, { client_secret: null, audience: null }, { enabled: false }],
});

const routes: FuzzRoute[] = [
  { route: `GET ${P}`, path: IdentityProvidersPath, collection: identityProvidersCollection, query: identityProviderListQuery },
  {
    route: `POST ${P}`,
    path: IdentityProvidersPath,
    body: CreateIdentityProviderBody,
    ...providers,
    fitting: () => [
      fit(),
      { ...fit(), client_secret: 'fit-secret', scopes: ['openid'], audience: 'aud', jwks_uri: 'https://fit.example.com/jwks' },
      { ...fit(), provider_type: 'saml' },
    ],
  },
  { route: `GET ${P}/{provider_id}`, path: IdentityProviderPath, ...providers },
  update('PATCH'),
  update('PUT'),
  { route: `DELETE ${P}/{provider_id}`, path: IdentityProviderPath },
];

fuzzArea('fuzz: Tenant Identity Providers endpoints never answer 5xx to client input', {
  table: 'fuzz-identity-providers',
  salt: 1400,
  area: (r) => r.path === P || r.path === `${P}/{provider_id}`,
  routes,
});
