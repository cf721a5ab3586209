import { createHash } from 'node:crypto';
import { oauthError } from '../../errors.ts';
import { newEvent } from '../../records/event-record.ts';
import { issueUserTokens } from '../user-tokens/issue-user-tokens.ts';
import { type CodeName, CodeParametersSchema } from './code-parameters.ts';
import { defineGrant } from './token-grant.ts';

/** The spec's name for the PKCE exchange: the verifier is required (docs/contract.md §5.1). */
const VERIFIER_REQUIRED = 'authorization_code_verifier';

/**
 * One message for every refused code, so the answer does not say which rule refused it; it names
 * the code by the spelling the client sent.
 */
const invalidCode = (name: CodeName) =>
  oauthError(
    400,
    'invalid_grant',
    `body.${name}: is invalid, expired, used, or was issued for another client, redirect_uri or code_verifier.`,
  );

/**
 * RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.5-4.6) and docs/contract.md §5.1. Client authentication is the
 * dispatcher's, as for every grant. The code is redeemed by ONE conditional write that checks,
 * with "unused and live", that it was issued to this client, for this `redirect_uri`, and with
 * the challenge of this `code_verifier` (or with none when none is sent: RFC 9700 §2.1.1, a
 * verifier for a code without a challenge is a downgrade attempt). A wrong verifier does not burn
 * the code. A code presented again by its client is reuse (§4.1.2 "SHOULD revoke all tokens
 * previously issued based on that authorization code"): the login family of the first redemption
 * is revoked, its refresh tokens and access tokens with it (docs/tokens.md "Refresh tokens").
 */
export const authorizationCode = defineGrant({
  name: 'authorization_code',
  aliases: ['code', VERIFIER_REQUIRED],
  // Both spellings of the code and of the verifier, with either grant_type (spec 4.2).
  params: CodeParametersSchema,

  async handle({ client }, request, deps, context) {
    if (request.grant_type === VERIFIER_REQUIRED && request.code_verifier === undefined) {
      // The spelling that goes with the code's: a client that says `authorization_code` reads the spec's names.
      const name = request.code_name === 'authorization_code' ? 'authorization_code_verifier' : 'code_verifier';
      throw oauthError(400, 'invalid_request', `body.${name}: is required.`);
    }
    const outcome = await deps.authorizationCodes.redeem(request.code, {
      clientId: client.id,
      redirectUri: request.redirect_uri,
      challenge: request.code_verifier === undefined ? undefined : s256(request.code_verifier),
    });
    if (outcome.state === 'reused') {
      const { code } = outcome;
      const fields = { tenant_id: code.tenant_id, client_id: code.client_id, user_id: code.user_id, details: { family_id: code.sid } };
      if (code.client_id === client.id) {
        // The event rides on the family's revocation: one per family however often the code comes back.
        const reused = newEvent('authorization_code.reused', deps.now(), context.origin ?? {}, fields);
        await deps.refreshTokens.revokeFamily(code.sid, [deps.events.fold(reused)]);
      } else {
        // Only the code's own client revokes: another client cannot end a login it never had. It
        // still showed a used code it was never given: one event, as nothing else is written.
        const stray = { ...fields, actor: { sub: client.id, client_id: client.id } };
        await deps.events.record(newEvent('authorization_code.reused', deps.now(), context.origin ?? {}, stray));
      }
      throw invalidCode(request.code_name);
    }
    if (outcome.state !== 'redeemed') throw invalidCode(request.code_name);
    const { code } = outcome;
    const user = await deps.findUser(code.user_id);
    if (!user || user.blocked || user.tenant_id !== code.tenant_id) throw invalidCode(request.code_name);
    return issueUserTokens(
      {
        client,
        user,
        request: { scope: code.scope.join(' '), ...(code.audience !== undefined ? { audience: code.audience } : {}) },
        authTime: code.auth_time,
        amr: code.amr,
        acr: code.acr,
        // A password change or block after the code was issued kills it (the session it came from died too).
        authorizedAt: code.created_at,
        ...(code.nonce !== undefined ? { nonce: code.nonce } : {}),
        sid: code.sid,
        dpop: context.dpop,
      },
      deps,
    );
  },
});

/** RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))). */
const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');
