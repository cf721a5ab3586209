import { oauthError } from '../../errors.ts';
import type { OAuthClient } from '../../ports/token-path.ts';
import type { OneTimeIds } from '../../store/sessions/one-time-ids-repository.ts';
import type { DpopNonces } from './dpop-nonces.ts';
import type { CheckedProof } from './dpop-proof.ts';

/** What the DPoP checks need (members of OAuthDeps). */
export interface DpopDeps {
  oneTimeIds: OneTimeIds;
  dpopNonces: DpopNonces;
  issuer: string;
  now: () => Date;
}

/** The key a token request proved possession of: its access token gets `cnf.jkt` (RFC 9449 §6.1). */
export interface DpopBinding {
  jkt: string;
}

/** RFC 9449 §5 / §7.1: the proof is refused, with what was wrong (never the proof itself). */
export const invalidDpopProof = (reason: string) => oauthError(400, 'invalid_dpop_proof', `header.dpop: ${reason}.`);

/**
 * The `DPoP` step of `/token` (RFC 9449 §5). No header: a Bearer token as before, unless the
 * client registered `dpop_bound_access_tokens` (§5.2: "MUST reject token requests from this client
 * that do not contain the DPoP header"). A header: the proof checked (dpop-proof.ts), a `nonce`
 * of ours required (§8; docs/client-authentication.md "Sender-constrained tokens (DPoP)": every
 * /token proof, answered `use_dpop_nonce` with a fresh `DPoP-Nonce` otherwise, at no store call),
 * and its `jti` used once (one conditional write: of concurrent uses exactly one passes).
 */
export async function dpopAtToken(
  headers: Record<string, string | undefined>,
  client: OAuthClient,
  deps: DpopDeps,
): Promise<DpopBinding | undefined> {
  const proof = headers.dpop;
  if (proof === undefined) {
    // No proof at all is a missing required parameter (RFC 6749 §5.2 invalid_request), not a bad one.
    if (client.dpop_bound_access_tokens) {
      throw oauthError(400, 'invalid_request', 'header.dpop: is required: this client uses DPoP-bound access tokens only.');
    }
    return undefined;
  }
  // The proof checks (and jose) load with the first proof: a Bearer-only container parses none of it.
  const { checkDpopProof, DPOP_IAT_WINDOW_SECONDS, InvalidDpopProof } = await import('./dpop-proof.ts');
  let checked: CheckedProof;
  try {
    checked = await checkDpopProof(proof, { htm: 'POST', htu: `${deps.issuer}/token`, now: deps.now() });
  } catch (err) {
    if (err instanceof InvalidDpopProof) throw invalidDpopProof(err.message);
    throw err;
  }
  if (checked.nonce === undefined || !(await deps.dpopNonces.accepts(checked.nonce))) {
    throw oauthError(400, 'use_dpop_nonce', 'header.dpop: the proof must carry the nonce of the DPoP-Nonce header.', {
      headers: { 'DPoP-Nonce': await deps.dpopNonces.current() },
    });
  }
  // Kept while the proof could still be accepted: iat + the window (+1 s for the rounding).
  const until = new Date((checked.iat + DPOP_IAT_WINDOW_SECONDS + 1) * 1000);
  if (!(await deps.oneTimeIds.useOnce('dpop_proof', checked.jkt, checked.jti, until))) {
    throw invalidDpopProof('this proof (its jti) was already used');
  }
  return { jkt: checked.jkt };
}
