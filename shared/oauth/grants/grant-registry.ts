import { authorizationCode } from './authorization-code.ts';
import { clientCredentials } from './client-credentials.ts';
import { deviceCode } from './device-code.ts';
import { otp } from './otp.ts';
import { password } from './password.ts';
import { refreshToken } from './refresh-token.ts';
import { tokenExchange } from './token-exchange.ts';
import type { AnyTokenGrant } from './token-grant.ts';

/**
 * The grants of `/token`, one line each (docs/tokens.md "Adding a grant"): every grant docs/contract.md
 * §5.1 lists. `implicit` is deliberately absent: RFC 6749 §4.2 issues it only through `/authorize`,
 * so at `/token` it is an unknown grant like any other (`unsupported_grant_type`).
 */
const GRANTS: readonly AnyTokenGrant[] = [clientCredentials, refreshToken, password, otp, authorizationCode, deviceCode, tokenExchange];

/** Every accepted `grant_type` spelling → its grant (a Map: `constructor` names no grant). */
const BY_SPELLING = indexBySpelling(GRANTS);

/** The grant a `grant_type` names, by its name or an alias; undefined for anything else. */
export const findGrant = (grantType: string): AnyTokenGrant | undefined => BY_SPELLING.get(grantType);

/**
 * Discovery's `grant_types_supported` (RFC 8414 §2: "grant type values used at the token
 * endpoint"): each grant once, by its name in the IANA OAuth registry (an RFC URN where the
 * grant's RFC defines one: RFC 8628 §7.2, RFC 8693 §5.2), never by the spec's other spellings,
 * which `/token` accepts all the same (docs/contract.md §5.1). `otp` is left out: it is no
 * registered name, and an extension grant's name must be an absolute URI (RFC 6749 §4.5), so a
 * relying party could not tell what it means (docs/keys.md "Discovery").
 */
export const supportedGrantTypes: readonly string[] = GRANTS.filter((g) => g !== otp).map(
  (g) => g.aliases?.find((a) => a.startsWith('urn:ietf:params:oauth:grant-type:')) ?? g.name,
);

/** The short names of every grant (what `client_metadata.grant_types` may name). */
export const knownGrantNames: readonly string[] = GRANTS.map((g) => g.name);

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
