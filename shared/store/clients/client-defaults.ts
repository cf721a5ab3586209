import type { ClientMetadata, ClientRecord, NewClient } from '../../records/client-record.ts';
import { newAuditFields } from '../../records/common.ts';

/**
 * docs/contract.md §5.1: new clients may use these grants; a public client cannot authenticate, so it gets
 * no `client_credentials`. `password` and `implicit` are never on by default.
 */
export const defaultGrantTypes = (isPublic: boolean): string[] =>
  isPublic ? ['authorization_code', 'refresh_token'] : ['authorization_code', 'refresh_token', 'client_credentials'];

/**
 * Lifetimes the spec leaves open, set to what Auth0 users know: refresh tokens expire after
 * 30 days when expiry is enabled, ID tokens live 10 hours.
 */
export function defaultClientMetadata(isPublic: boolean, given: Partial<ClientMetadata> = {}): ClientMetadata {
  // The registered members (token_endpoint_auth_method, jwks, ...) are kept as given; unset ones keep their defaults.
  const { grant_types: _g, urls: _u, refresh_token: _r, id_token: _i, oauth: _o, saml: _s, wsfed: _w, ...registered } = given;
  return {
    ...registered,
    grant_types: given.grant_types ?? defaultGrantTypes(isPublic),
    urls: { ...given.urls },
    refresh_token: { expiration_enabled: false, expiration_lifetime: 2_592_000, ...given.refresh_token },
    id_token: { expiration_lifetime: 36_000, ...given.id_token },
    oauth: { ...given.oauth },
    saml: { ...given.saml },
    wsfed: { ...given.wsfed },
  };
}

/**
 * The stored record of a new client. Spec defaults: is_public false, is_global true. Decided
 * here (spec silent): client_type `regular_web` (`spa` for public clients), is_first_party false
 * (consent is not skipped unless someone says the client is theirs), secret never expires.
 */
export function newClientRecord(
  id: string,
  input: NewClient,
  actor: string,
  at: string,
  secret?: { hash: string; sealed: string },
): ClientRecord {
  const isPublic = input.is_public ?? false;
  return {
    id,
    tenant_id: input.tenant_id,
    client_type: input.client_type ?? (isPublic ? 'spa' : 'regular_web'),
    client_name: input.client_name,
    ...(input.client_description !== undefined ? { client_description: input.client_description } : {}),
    client_metadata: defaultClientMetadata(isPublic, input.client_metadata),
    app_metadata: input.app_metadata ?? [],
    is_public: isPublic,
    is_first_party: input.is_first_party ?? false,
    is_global: input.is_global ?? true,
    is_default: input.is_default ?? false,
    ...(secret ? { secret_hash: secret.hash, secret_sealed: secret.sealed } : {}),
    client_secret_expires_at: input.client_secret_expires_at ?? null,
    aggregations: { resources: 0, permissions: 0 },
    token_grants: {},
    token_grants_version: 0,
    links_version: 0,
    version: 1,
    ...newAuditFields(actor, at),
  };
}
