import { oauthError } from '../../errors.ts';
import { clientCredentials } from './client-credentials.ts';
import type { AnyTokenGrant } from './token-grant.ts';

/**
 * Every grant of `/token` (API.md §5.1), one line each. A grant whose issue has not landed yet is
 * `notYetAvailable(name, aliases)`: its spellings are known, so a client that may not use it gets
 * `unauthorized_client` and one that may gets `unsupported_grant_type` "not available yet". When
 * it lands, its module replaces that line (docs/tokens.md "Adding a grant").
 *
 * `implicit` is deliberately absent: RFC 6749 §4.2 issues it only through `/authorize`, so at
 * `/token` it is an unknown grant like any other (`unsupported_grant_type`).
 */
const GRANTS: readonly AnyTokenGrant[] = [
  clientCredentials,
  notYetAvailable('password'),
  notYetAvailable('refresh_token'),
  // `authorization_code_verifier` is the spec's name for the PKCE exchange: a verifier is required.
  notYetAvailable('authorization_code', ['code', 'authorization_code_verifier']),
  notYetAvailable('device_code', ['urn:ietf:params:oauth:grant-type:device_code']),
  notYetAvailable('otp'),
  notYetAvailable('token_exchange', ['urn:ietf:params:oauth:grant-type:token-exchange']),
];

/** Every accepted `grant_type` spelling → its grant (a Map: `constructor` names no grant). */
export const grantsBySpelling: ReadonlyMap<string, AnyTokenGrant> = indexBySpelling(GRANTS);

/** The grant a `grant_type` names, by its name or an alias; undefined for anything else. */
export const findGrant = (grantType: string): AnyTokenGrant | undefined => grantsBySpelling.get(grantType);

export function indexBySpelling(grants: readonly AnyTokenGrant[]): Map<string, AnyTokenGrant> {
  const index = new Map<string, AnyTokenGrant>();
  for (const grant of grants) {
    for (const spelling of [grant.name, ...(grant.aliases ?? [])]) {
      // A spelling naming two grants would make dispatch depend on registration order.
      if (index.has(spelling)) throw new Error(`grant_type "${spelling}" is registered twice`);
      index.set(spelling, grant);
    }
  }
  return index;
}

/** A grant the spec lists whose implementation has not landed: known, allowed or not, never issued. */
function notYetAvailable(name: string, aliases: readonly string[] = []): AnyTokenGrant {
  return {
    name,
    aliases,
    handle: () => Promise.reject(oauthError(400, 'unsupported_grant_type', `body.grant_type: ${name} is not available yet.`)),
  };
}
