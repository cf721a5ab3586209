import type { AccessTokenClaims } from '../tokens/verify-access-token.ts';
import type { OAuthClient } from './oauth-deps.ts';

/**
 * Whether `caller` may know of this token at all (docs/contract.md §4): a global client sees every tenant's
 * tokens, any other client only its own tenant's. `/introspect` calls the others inactive and
 * `/revoke` treats them as unknown (RFC 7009 §2.2), so neither says that a token exists elsewhere.
 */
export const maySee = (caller: OAuthClient, claims: Pick<AccessTokenClaims, 'tenant_id'>): boolean =>
  caller.is_global || claims.tenant_id === caller.tenant_id;
