import type { ClientRecord } from '../records/client-record.ts';
import type { ResourceMetadata } from '../records/resource-record.ts';

export interface ConsentQuestion {
  client: Pick<ClientRecord, 'is_first_party'>;
  /** The Resource the token is for; undefined: a `/userinfo` token (OIDC scopes only). */
  resource: { resource_metadata: Pick<ResourceMetadata, 'skip_consent_for_first_party' | 'is_system'> } | undefined;
  /** The user's grant to this client for this Resource, if any. */
  grant: { scopes: readonly string[] } | undefined;
  /** The scopes the client asks for (names). */
  scopes: readonly string[];
  /** OIDC `prompt` values of the request. */
  prompt: readonly string[];
}

/**
 * Whether the consent page must ask (docs/contract.md §7.4):
 * - `prompt=consent` always asks (OIDC Core §3.1.2.1);
 * - a first-party client skips it when the Resource has `skip_consent_for_first_party`, and when
 *   there is no Resource (a `/userinfo` token: the user's own profile, to the operator's own app);
 *   never for the management API, whatever its stored flag (docs/security.md "The management
 *   API"): a management token reaches an application only with the user's consent, given now or
 *   remembered;
 * - a User Grant that already covers every requested scope skips it ("remembered");
 * - otherwise it asks.
 */
export function consentNeeded({ client, resource, grant, scopes, prompt }: ConsentQuestion): boolean {
  if (prompt.includes('consent')) return true;
  if (client.is_first_party && (resource === undefined || firstPartySkips(resource.resource_metadata))) return false;
  if (grant && scopes.every((s) => grant.scopes.includes(s))) return false;
  return true;
}

const firstPartySkips = (m: Pick<ResourceMetadata, 'skip_consent_for_first_party' | 'is_system'>) =>
  m.skip_consent_for_first_party && !m.is_system;
