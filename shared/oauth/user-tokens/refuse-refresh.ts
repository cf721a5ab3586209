import { oauthError } from '../../errors.ts';
import type { RotateOutcome } from '../../store/sessions/refresh-tokens-repository.ts';
import type { OAuthDeps } from '../oauth-deps.ts';

/**
 * The one answer to every refused refresh token (RFC 6749 §5.2 `invalid_grant`), after the
 * consequence of its cause: presenting a rotated token is reuse, and reuse revokes the whole
 * family (docs/contract.md §7.1; RFC 9700 §4.14.2: the server cannot tell the legitimate client from an
 * attacker, so both lose the grant). One message for every cause, so the answer does not say
 * which rule refused the token.
 */
export async function refuseRefresh(
  outcome: Exclude<RotateOutcome, 'rotated'> | 'unknown' | 'expired',
  familyId: string | undefined,
  deps: Pick<OAuthDeps, 'refreshTokens'>,
): Promise<never> {
  if (outcome === 'reused' && familyId) await deps.refreshTokens.revokeFamily(familyId);
  throw oauthError(400, 'invalid_grant', 'body.refresh_token: is invalid, expired or revoked.');
}
