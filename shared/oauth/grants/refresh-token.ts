import * as v from 'valibot';
import { oauthError } from '../../errors.ts';
import { parseScope } from '../parse-scope.ts';
import { userHonoursRefreshToken } from '../user-token-state.ts';
import { issueUserTokens } from '../user-tokens/issue-user-tokens.ts';
import { refuseRefresh } from '../user-tokens/refuse-refresh.ts';
import { defineGrant } from './token-grant.ts';

/**
 * RFC 6749 §6 with rotation and reuse detection (docs/contract.md §5.1, §7.1; RFC 9700 §4.14.2). Every
 * refusal is the same `invalid_grant` (refuse-refresh.ts). The rules, in order:
 * - the token exists, is not expired, and was issued to this client (§6: "bound to the client");
 * - a token bound to a DPoP key (a public client's, RFC 9449 §5) comes with a proof of that key;
 * - a token already rotated is reuse: its whole family is revoked;
 * - `scope` may only narrow: a scope the token does not hold is `invalid_scope` (§6 "MUST NOT
 *   include any scope not originally granted"); the new refresh token keeps the original scope
 *   (§6 "MUST be identical"), only the access and ID tokens are narrowed;
 * - `audience`/`resource`, when sent, must be the token's own (`invalid_target` otherwise);
 * - the user exists, is not blocked, and the token is not older than `tokens_revoked_at`. The
 *   cached user (1 s) gives the early answer; the rotation transaction checks the user item, the
 *   family and "not yet rotated" again, so no cache can let a refused token through, and of n
 *   parallel uses exactly one wins (refresh-tokens-repository.ts `rotate`).
 */
export const refreshToken = defineGrant({
  name: 'refresh_token',
  params: v.looseObject({ refresh_token: v.pipe(v.string(), v.minLength(1, 'is required'), v.maxLength(256)) }),
  // A stale client or key state is read in one call with the token and its user.
  preload: (request) => ({ refreshToken: request.refresh_token }),

  async handle({ client }, request, deps, context) {
    const stored = await deps.findRefreshToken(request.refresh_token);
    if (!stored || stored.client_id !== client.id) return refuseRefresh('unknown', undefined, deps);
    // RFC 9449 §5: a bound token needs a proof of its key. Not reuse: the family stays alive.
    if (stored.dpop_jkt !== undefined && stored.dpop_jkt !== context.dpop?.jkt) {
      throw oauthError(400, 'invalid_grant', 'body.refresh_token: is bound to another DPoP key, or no DPoP proof was sent.');
    }
    if (stored.expires_at && Date.parse(stored.expires_at) <= deps.now().getTime()) return refuseRefresh('expired', undefined, deps);
    if (stored.rotated_at) return refuseRefresh('reused', { token: stored, origin: context.origin ?? {} }, deps);

    const requested = parseScope(request.scope);
    const held = new Set(stored.scope);
    if (requested.some((s) => !held.has(s))) {
      // docs/contract.md §8: name the field, never echo the scopes sent.
      throw oauthError(400, 'invalid_scope', 'body.scope: asks for more than the refresh token was granted.');
    }
    const audience = request.audience ?? request.resource;
    if (audience !== undefined && audience !== (stored.audience ?? undefined)) {
      throw oauthError(400, 'invalid_target', 'body.audience: is not the audience of the refresh token.');
    }

    const user = await deps.findUser(stored.user_id);
    if (!userHonoursRefreshToken(user, stored)) return refuseRefresh('user-refused', undefined, deps);
    return issueUserTokens(
      {
        client,
        user,
        request: {
          scope: (requested.length ? requested : stored.scope).join(' '),
          ...(stored.audience ? { audience: stored.audience } : {}),
        },
        authTime: stored.auth_time,
        amr: stored.amr,
        acr: stored.acr,
        authorizedAt: stored.created_at,
        refresh: stored,
        dpop: context.dpop,
        origin: context.origin,
      },
      deps,
    );
  },
});
