import { oauthError } from '../../errors.ts';
import { type EventOrigin, newEvent } from '../../records/event-record.ts';
import type { RotateOutcome, StoredRefreshToken } from '../../store/sessions/refresh-tokens-repository.ts';
import type { OAuthDeps } from '../oauth-deps.ts';

/** The presented refresh token when it was already rotated, and where the request came from. */
export interface PresentedRefresh {
  token: StoredRefreshToken;
  origin: EventOrigin;
}

/**
 * The one answer to every refused refresh token (RFC 6749 §5.2 `invalid_grant`), after the
 * consequence of its cause: presenting a rotated token is reuse, and reuse revokes the whole
 * family (docs/contract.md §7.1; RFC 9700 §4.14.2: the server cannot tell the legitimate client from an
 * attacker, so both lose the grant). One message for every cause, so the answer does not say
 * which rule refused the token.
 *
 * The revocation carries the `refresh_token.reused` event (docs/events.md): it names the family
 * (the tokens' `sid`), never a token or its hash, and lands only with the write that revokes the
 * family, so n concurrent replays make one event, and replays of a dead family make none.
 */
export async function refuseRefresh(
  outcome: Exclude<RotateOutcome, 'rotated'> | 'unknown' | 'expired',
  presented: PresentedRefresh | undefined,
  deps: Pick<OAuthDeps, 'refreshTokens' | 'events' | 'now'>,
): Promise<never> {
  if (outcome === 'reused' && presented) {
    const { token, origin } = presented;
    const reused = newEvent('refresh_token.reused', deps.now(), origin, {
      tenant_id: token.tenant_id,
      client_id: token.client_id,
      user_id: token.user_id,
      details: { family_id: token.family_id },
    });
    await deps.refreshTokens.revokeFamily(token.family_id, [deps.events.fold(reused)]);
  }
  throw oauthError(400, 'invalid_grant', 'body.refresh_token: is invalid, expired or revoked.');
}
