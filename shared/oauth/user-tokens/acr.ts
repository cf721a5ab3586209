import type { AuthMethod } from '../../store/sessions/sessions-repository.ts';

/**
 * The `acr` values we support, from OpenID Connect Extended Authentication Profile ACR Values 1.0
 * §2: `phr` (phishing-resistant: the login used a passkey, `amr` `hwk` or `swk`) and `phrh`
 * (phishing-resistant and hardware-protected: a passkey bound to one device, `hwk`; a synced
 * passkey's key leaves the device). docs/passkeys.md "amr and acr".
 */
export const ACR_VALUES_SUPPORTED = ['phr', 'phrh'] as const;
export type Acr = (typeof ACR_VALUES_SUPPORTED)[number];

/** The `amr` values (RFC 8176 §2) any one of which satisfies each `acr`. */
const SATISFIED_BY: Readonly<Record<Acr, readonly AuthMethod[]>> = { phr: ['hwk', 'swk'], phrh: ['hwk'] };

export const isSupportedAcr = (value: string): value is Acr => (ACR_VALUES_SUPPORTED as readonly string[]).includes(value);

/**
 * The ID token's `acr` (OIDC Core §2, §3.1.2.1 `acr_values`): the first requested value the
 * login's `amr` satisfies; undefined (no claim: a voluntary claim, OIDC Core §5.5.1.1) when none
 * was requested or none is satisfied.
 */
export function acrOf(requested: readonly string[] | undefined, amr: readonly AuthMethod[] | undefined): Acr | undefined {
  return requested?.find((v): v is Acr => isSupportedAcr(v) && SATISFIED_BY[v].some((m) => amr?.includes(m) === true));
}

/**
 * Whether an existing session may stand in for the login a request asks for: it asked for no
 * `acr`, or the session's `amr` satisfies one it asked for. Otherwise the person signs in again
 * (and `prompt=none` answers `login_required`, OIDC Core §3.1.2.6).
 */
export const sessionMeetsAcr = (requested: readonly string[] | undefined, amr: readonly AuthMethod[] | undefined): boolean =>
  !requested?.length || acrOf(requested, amr) !== undefined;
