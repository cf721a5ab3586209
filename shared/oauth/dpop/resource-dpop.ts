import type { OneTimeIds } from '../../store/sessions/one-time-ids-repository.ts';
import { dpopChallenge } from './bound-token.ts';
import { checkDpopProof, DPOP_IAT_WINDOW_SECONDS, InvalidDpopProof } from './dpop-proof.ts';

/** How the access token was presented (RFC 6750 §2.1 `Bearer`, RFC 9449 §7.1 `DPoP`). */
export type TokenScheme = 'Bearer' | 'DPoP';

/** `Authorization: Bearer|DPoP <token68>` (schemes are case-insensitive, RFC 9110 §11.1). */
export function authorizationToken(headers: Record<string, string | undefined>): { token: string; scheme: TokenScheme } | undefined {
  const m = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(headers.authorization ?? '');
  if (!m) return undefined;
  return { token: m[2]!, scheme: m[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer' };
}

export interface ResourceDpopRequest {
  /** The token as presented and the scheme it came with (a form's `access_token` counts as Bearer). */
  token: string;
  scheme: TokenScheme;
  /** The `DPoP` header, if any. */
  proof: string | undefined;
  method: string;
  /** The resource's URL, from our issuer and the route path (never a Host header). */
  url: string;
  /** The verified token's `cnf.jkt`, when it is bound. */
  jkt: string | undefined;
}

/**
 * What a resource server must check before honouring a token (RFC 9449 §7; docs/client-authentication.md
 * "Sender-constrained tokens (DPoP)"): a bound token only with the DPoP scheme and a proof of its
 * key for this request (`htm`, `htu`, `iat`, `ath`), each proof once; an unbound token never with
 * the DPoP scheme (§7.2: the scheme would claim a binding the token does not have).
 */
export async function checkResourceDpop(r: ResourceDpopRequest, deps: { oneTimeIds: OneTimeIds; now: () => Date }): Promise<void> {
  if (r.jkt === undefined) {
    if (r.scheme === 'DPoP') throw dpopChallenge('invalid_token', 'The access token is not DPoP-bound: present it as Bearer.');
    return;
  }
  // §7.2: a bound token presented as Bearer is refused as an invalid token, under the DPoP challenge.
  if (r.scheme !== 'DPoP')
    throw dpopChallenge('invalid_token', 'The access token is DPoP-bound: present it with the DPoP scheme and a proof.');
  if (r.proof === undefined) throw dpopChallenge('invalid_dpop_proof', 'header.dpop: is required with a DPoP-bound access token.');
  let checked: Awaited<ReturnType<typeof checkDpopProof>>;
  try {
    checked = await checkDpopProof(r.proof, { htm: r.method, htu: r.url, now: deps.now(), accessToken: r.token });
  } catch (err) {
    if (err instanceof InvalidDpopProof) throw dpopChallenge('invalid_dpop_proof', `header.dpop: ${err.message}.`);
    throw err;
  }
  if (checked.jkt !== r.jkt)
    throw dpopChallenge('invalid_dpop_proof', 'header.dpop: is signed by another key than the one the token is bound to.');
  const until = new Date((checked.iat + DPOP_IAT_WINDOW_SECONDS + 1) * 1000);
  if (!(await deps.oneTimeIds.useOnce('dpop_proof', checked.jkt, checked.jti, until))) {
    throw dpopChallenge('invalid_dpop_proof', 'header.dpop: this proof (its jti) was already used.');
  }
}
