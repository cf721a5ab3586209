import { oauthError } from '../../errors.ts';
import { authorizationCode } from './authorization-code.ts';
import { clientCredentials } from './client-credentials.ts';
import { deviceCode } from './device-code.ts';
import { otp } from './otp.ts';
import { password } from './password.ts';
import { refreshToken } from './refresh-token.ts';
import type { AnyTokenGrant } from './token-grant.ts';

/** The grants of `/token` that work end to end, one line each (docs/tokens.md "Adding a grant"). */
const GRANTS: readonly AnyTokenGrant[] = [clientCredentials, refreshToken, password, otp, authorizationCode, deviceCode];

/**
 * Grants docs/contract.md §5.1 lists whose issue has not landed yet. Their spellings are known, so a client
 * that may not use one gets `unauthorized_client`, and one that may gets `unsupported_grant_type`
 * "not available yet". When a grant lands, its line moves to GRANTS as its module.
 *
 * `implicit` is deliberately absent: RFC 6749 §4.2 issues it only through `/authorize`, so at
 * `/token` it is an unknown grant like any other (`unsupported_grant_type`).
 */
const NOT_YET_AVAILABLE: readonly AnyTokenGrant[] = [
  notYetAvailable('token_exchange', ['urn:ietf:params:oauth:grant-type:token-exchange']),
];

/** Every accepted `grant_type` spelling → its grant (a Map: `constructor` names no grant). */
const BY_SPELLING = indexBySpelling([...GRANTS, ...NOT_YET_AVAILABLE]);

/** The grant a `grant_type` names, by its name or an alias; undefined for anything else. */
export const findGrant = (grantType: string): AnyTokenGrant | undefined => BY_SPELLING.get(grantType);

/** The `grant_type` values that work end to end, for discovery's `grant_types_supported` (RFC 8414 §2). */
export const supportedGrantTypes: readonly string[] = GRANTS.flatMap((g) => [g.name, ...(g.aliases ?? [])]);

/** The short names of every grant, available or not (what `client_metadata.grant_types` may name). */
export const knownGrantNames: readonly string[] = [...GRANTS, ...NOT_YET_AVAILABLE].map((g) => g.name);

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

function notYetAvailable(name: string, aliases: readonly string[] = []): AnyTokenGrant {
  return {
    name,
    aliases,
    handle: () => Promise.reject(oauthError(400, 'unsupported_grant_type', `body.grant_type: ${name} is not available yet.`)),
  };
}
