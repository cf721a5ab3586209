import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import * as v from 'valibot';
import type { PasskeyRecord } from '../../records/passkey-record.ts';
import type { OneTimeIds } from '../../store/sessions/one-time-ids-repository.ts';

/**
 * The WebAuthn ceremonies of the hosted pages (W3C WebAuthn Level 3 §7), verified by
 * @simplewebauthn/server (no CBOR or COSE parsed here). Stateless challenges, used once:
 *
 * - the page gets `state` = `{nonce}.{expiry}` (a random 128-bit nonce, 5 minutes) and the options
 *   whose challenge is HMAC-SHA256, under the hosted pages' CSRF key, of (purpose, the interaction
 *   or session id, the browser's `csrf` cookie, the user id where the step is bound to one, nonce,
 *   expiry). Nothing is stored when a page is shown;
 * - at verification the challenge is recomputed from the posted `state` and what the request is
 *   bound to: a challenge issued to another browser, for another purpose, interaction or user,
 *   or with an edited expiry is not the one the authenticator signed (WebAuthn §13.4.3). The
 *   expiry is checked, then the library verifies the type, challenge, origin (the issuer's),
 *   RP ID hash (the issuer's hostname), flags and signature; only then is the nonce marked used,
 *   with ONE conditional write (`oneTimeIds.useOnce`), so a replayed credential, even racing the
 *   first, is refused.
 * - the signature counter (WebAuthn §6.1.1) is compared here, after the signature verified and the
 *   challenge was used: the library's own comparison runs before its signature check, and an
 *   unsigned counter is nothing to report. A counter that goes backwards is a cloned authenticator
 *   (or a replay the nonce already stopped) and the caller refuses and reports it.
 */

/**
 * @simplewebauthn/server and its ASN.1 dependencies (about 330 KB of the login function's bundle,
 * some 60 ms of a cold start's CPU) load on the first step that verifies a credential or registers
 * one, as a chunk of their own: a login page shown, and a password sign-in, never load them
 * (docs/benchmarks.md "Login function with passkeys").
 */
const webauthn = () => import('@simplewebauthn/server');

/** What a challenge serves: one purpose's challenge never verifies for another. */
export type CeremonyPurpose = 'login' | 'login-second-factor' | 'login-register' | 'account-register';

/** What a challenge is bound to. */
export interface CeremonyBinding {
  purpose: CeremonyPurpose;
  /** The interaction id (login) or the session id (account page). */
  subject: string;
  /** The browser's CSRF binding (browser-responses.ts `browserBinding`). */
  browser: string;
  /** The user the step is for, where it is bound to one (second factor, registration). */
  userId?: string;
}

export interface CeremonyDeps {
  /** The hosted pages' CSRF key (`serviceSecret('hosted-pages')`). */
  csrfKey: () => Promise<Buffer>;
  /** The issuer: its origin is the expected origin, its hostname the RP ID. */
  issuer: string;
  oneTimeIds: OneTimeIds;
  now: () => Date;
}

/** How long a ceremony may take from the page to the POST (WebAuthn §15.1 recommends up to 10 minutes). */
export const CHALLENGE_SECONDS = 300;
const TIMEOUT_MS = CHALLENGE_SECONDS * 1000;

/** What a refused ceremony was; `counter` is reported by the caller (a log line and a metric). */
export type CeremonyFailure = 'invalid' | 'expired' | 'replayed' | 'counter';

const rp = (issuer: string) => {
  const url = new URL(issuer);
  return { origin: url.origin, id: url.hostname };
};

const STATE = /^([A-Za-z0-9_-]{22})\.(\d{1,12})$/;

/**
 * Uses a ceremony's `state` up without a credential (a page's "Not now": the ceremony is given up
 * once). The caller has checked the state under its own CSRF token; false for a malformed, expired
 * or already used state.
 */
export async function useStateOnce(purpose: CeremonyPurpose, state: unknown, deps: CeremonyDeps): Promise<boolean> {
  const match = typeof state === 'string' ? STATE.exec(state) : null;
  if (!match) return false;
  const expiresAt = new Date(Number(match[2]) * 1000);
  if (expiresAt.getTime() <= deps.now().getTime()) return false;
  return deps.oneTimeIds.useOnce('webauthn_challenge', purpose, match[1]!, expiresAt);
}

async function challengeOf(binding: CeremonyBinding, nonce: string, expiry: string, deps: CeremonyDeps): Promise<string> {
  const input = ['webauthn', binding.purpose, binding.subject, binding.browser, binding.userId ?? '', nonce, expiry].join('\u0000');
  return createHmac('sha256', await deps.csrfKey())
    .update(input)
    .digest('base64url');
}

async function newChallenge(binding: CeremonyBinding, deps: CeremonyDeps): Promise<{ state: string; challenge: string }> {
  const nonce = randomBytes(16).toString('base64url');
  const expiry = String(Math.floor(deps.now().getTime() / 1000) + CHALLENGE_SECONDS);
  return { state: `${nonce}.${expiry}`, challenge: await challengeOf(binding, nonce, expiry, deps) };
}

/** The posted state's challenge, or why there is none. */
async function expectedChallenge(
  binding: CeremonyBinding,
  state: unknown,
  deps: CeremonyDeps,
): Promise<{ challenge: string; nonce: string; expiresAt: Date } | { failure: CeremonyFailure }> {
  const match = typeof state === 'string' ? STATE.exec(state) : null;
  if (!match) return { failure: 'invalid' };
  const [, nonce, expiry] = match as unknown as [string, string, string];
  const expiresAt = new Date(Number(expiry) * 1000);
  if (expiresAt.getTime() <= deps.now().getTime()) return { failure: 'expired' };
  return { challenge: await challengeOf(binding, nonce, expiry, deps), nonce, expiresAt };
}

/** The library's comparison is `===`; this one is constant time (the challenge is an HMAC). */
const sameChallenge = (expected: string) => (presented: string) => {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** A ceremony's options and the `state` its form carries. */
export interface Ceremony<O> {
  options: O;
  state: string;
}

/**
 * A sign-in ceremony: discoverable (no `allow`: the authenticator offers the RP's passkeys, the
 * assertion's userHandle names the user) or for one user's passkeys (the second factor).
 */
export async function signInOptions(
  input: { binding: CeremonyBinding; allow?: readonly PasskeyRecord[]; userVerification: 'required' | 'preferred' },
  deps: CeremonyDeps,
): Promise<Ceremony<PublicKeyCredentialRequestOptionsJSON>> {
  const { state, challenge } = await newChallenge(input.binding, deps);
  // The options' JSON form (WebAuthn §5.5, `parseRequestOptionsFromJSON`), as the library's
  // generateAuthenticationOptions writes it: every login page shows these, so they do not load it.
  const options: PublicKeyCredentialRequestOptionsJSON = {
    rpId: rp(deps.issuer).id,
    challenge,
    allowCredentials: (input.allow ?? []).map((p) => ({
      id: p.credential_id,
      type: 'public-key',
      ...(p.transports ? { transports: p.transports } : {}),
    })),
    timeout: TIMEOUT_MS,
    userVerification: input.userVerification,
  };
  return { options, state };
}

/** A registration ceremony for the user, its passkeys excluded (WebAuthn §5.4 `excludeCredentials`). */
export async function registrationOptions(
  input: { user: { id: string; name: string }; existing: readonly PasskeyRecord[]; binding: CeremonyBinding },
  deps: CeremonyDeps,
): Promise<Ceremony<PublicKeyCredentialCreationOptionsJSON>> {
  const { state, challenge } = await newChallenge(input.binding, deps);
  const { id: rpID } = rp(deps.issuer);
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: rpID,
    rpID,
    // Our user ids are opaque UUIDs: no personal data in the handle the authenticator keeps (WebAuthn §14.6.1).
    userID: userHandleOf(input.user.id),
    userName: input.user.name,
    userDisplayName: input.user.name,
    challenge: Buffer.from(challenge, 'base64url'),
    timeout: TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: input.existing.map((p) => ({ id: p.credential_id, ...(p.transports ? { transports: p.transports } : {}) })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  return { options, state };
}

/** The WebAuthn user handle of a user: the UTF-8 bytes of its id (at most 64 bytes, WebAuthn §5.4.3). */
export const userHandleOf = (userId: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(userId, 'utf8'));

/** The user id an assertion's userHandle (base64url) names, or undefined for one that is not a user id of ours. */
export function userIdOfHandle(handle: string | undefined): string | undefined {
  if (!handle || handle.length > 86) return undefined;
  const id = Buffer.from(handle, 'base64url').toString('utf8');
  return /^[A-Za-z0-9-]{1,64}$/.test(id) ? id : undefined;
}

const b64u = (max: number) => v.pipe(v.string(), v.maxLength(max), v.regex(/^[A-Za-z0-9_-]*$/));
const extensions = v.pipe(
  v.record(v.string(), v.unknown()),
  v.check((o) => Object.keys(o).length <= 16, 'too many extension results'),
);
/** The members every credential's JSON has (WebAuthn §5.1 `toJSON()`), each bounded. */
const credentialJson = <T extends v.ObjectEntries>(response: T) =>
  v.object({
    id: b64u(1366),
    rawId: b64u(1366),
    type: v.literal('public-key'),
    authenticatorAttachment: v.optional(v.picklist(['platform', 'cross-platform'])),
    clientExtensionResults: v.optional(extensions, {}),
    response: v.object(response),
  });
const AssertionJson = credentialJson({
  clientDataJSON: b64u(4096),
  authenticatorData: b64u(4096),
  // An ML-DSA-44 signature (the library offers it where Node supports it) is 2420 bytes.
  signature: b64u(8192),
  userHandle: v.optional(b64u(86)),
});
const AttestationJson = credentialJson({
  clientDataJSON: b64u(4096),
  attestationObject: b64u(12_288),
  transports: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(32))), v.maxLength(8))),
});

/** The posted `credential` field's size bound, checked before it is parsed. */
export const MAX_CREDENTIAL_CHARS = 24_576;

function parseJson(raw: unknown): unknown {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_CREDENTIAL_CHARS) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** The posted `credential` of a sign-in (the assertion's JSON, WebAuthn §5.1 `toJSON()`), or undefined. */
export function parseAssertion(raw: unknown): AuthenticationResponseJSON | undefined {
  const parsed = v.safeParse(AssertionJson, parseJson(raw));
  return parsed.success ? (parsed.output as AuthenticationResponseJSON) : undefined;
}

/** The posted `credential` of a registration (the attestation's JSON), or undefined. */
export function parseAttestation(raw: unknown): RegistrationResponseJSON | undefined {
  const parsed = v.safeParse(AttestationJson, parseJson(raw));
  return parsed.success ? (parsed.output as RegistrationResponseJSON) : undefined;
}

/** A verified sign-in: the counter to store, and how the key is kept (`amr` `hwk` or `swk`). */
export interface VerifiedSignIn {
  counter: number;
  userVerified: boolean;
  amr: 'hwk' | 'swk';
}

/** The `amr` value of a passkey (RFC 8176 §2): a synced passkey is a software key, a device-bound one a hardware key. */
export const amrOf = (deviceType: PasskeyRecord['device_type']): 'hwk' | 'swk' => (deviceType === 'multiDevice' ? 'swk' : 'hwk');

/**
 * Verifies a sign-in assertion against the passkey the caller found by its credential id (and
 * whose user it checked), then uses the challenge. `counter`: verified, but the counter went
 * backwards (nothing stored by the caller; it reports it).
 */
export async function verifySignIn(
  input: {
    binding: CeremonyBinding;
    state: unknown;
    credential: AuthenticationResponseJSON;
    passkey: PasskeyRecord;
    userVerification: 'required' | 'preferred';
  },
  deps: CeremonyDeps,
): Promise<VerifiedSignIn | { failure: CeremonyFailure }> {
  const expected = await expectedChallenge(input.binding, input.state, deps);
  if ('failure' in expected) return expected;
  if (input.credential.id !== input.passkey.credential_id) return { failure: 'invalid' };
  const { origin, id } = rp(deps.issuer);
  const { verifyAuthenticationResponse } = await webauthn();
  let info: Awaited<ReturnType<typeof verifyAuthenticationResponse>>['authenticationInfo'];
  try {
    const result = await verifyAuthenticationResponse({
      response: input.credential,
      expectedChallenge: sameChallenge(expected.challenge),
      expectedOrigin: origin,
      expectedRPID: id,
      expectedType: 'webauthn.get',
      // Counter 0 here: the comparison is ours, after the signature (see the module comment).
      credential: {
        id: input.passkey.credential_id,
        publicKey: new Uint8Array(Buffer.from(input.passkey.public_key, 'base64url')),
        counter: 0,
      },
      requireUserVerification: input.userVerification === 'required',
    });
    if (!result.verified) return { failure: 'invalid' };
    info = result.authenticationInfo;
  } catch {
    return { failure: 'invalid' };
  }
  if (!(await deps.oneTimeIds.useOnce('webauthn_challenge', input.binding.purpose, expected.nonce, expected.expiresAt))) {
    return { failure: 'replayed' };
  }
  const stored = input.passkey.counter;
  if ((info.newCounter > 0 || stored > 0) && info.newCounter <= stored) return { failure: 'counter' };
  return { counter: info.newCounter, userVerified: info.userVerified, amr: amrOf(input.passkey.device_type) };
}

/** A passkey to add (the repository's NewPasskey). */
export type NewPasskey = Omit<PasskeyRecord, 'id' | 'created_at' | 'last_used_at'>;

/**
 * Verifies a registration (attestation `none`: docs/passkeys.md "What we accept, and why") and
 * uses its challenge; the passkey to add for the user, named `name` or "Passkey added {date}".
 */
export async function verifyRegistration(
  input: {
    binding: CeremonyBinding & { userId: string };
    state: unknown;
    credential: RegistrationResponseJSON;
    user: { id: string; tenant_id: string };
    userVerification: 'required' | 'preferred';
    name?: string;
  },
  deps: CeremonyDeps,
): Promise<{ passkey: NewPasskey; userVerified: boolean } | { failure: CeremonyFailure }> {
  if (input.binding.userId !== input.user.id) return { failure: 'invalid' };
  const expected = await expectedChallenge(input.binding, input.state, deps);
  if ('failure' in expected) return expected;
  const { origin, id } = rp(deps.issuer);
  const { verifyRegistrationResponse } = await webauthn();
  let info: NonNullable<Awaited<ReturnType<typeof verifyRegistrationResponse>>['registrationInfo']>;
  try {
    const result = await verifyRegistrationResponse({
      response: input.credential,
      expectedChallenge: sameChallenge(expected.challenge),
      expectedOrigin: origin,
      expectedRPID: id,
      expectedType: 'webauthn.create',
      requireUserVerification: input.userVerification === 'required',
    });
    if (!result.verified) return { failure: 'invalid' };
    info = result.registrationInfo;
  } catch {
    return { failure: 'invalid' };
  }
  if (!(await deps.oneTimeIds.useOnce('webauthn_challenge', input.binding.purpose, expected.nonce, expected.expiresAt))) {
    return { failure: 'replayed' };
  }
  const transports = info.credential.transports?.filter((t) => t.length <= 32).slice(0, 8);
  return {
    userVerified: info.userVerified,
    passkey: {
      user_id: input.user.id,
      tenant_id: input.user.tenant_id,
      credential_id: info.credential.id,
      public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      ...(transports && transports.length > 0 ? { transports } : {}),
      device_type: info.credentialDeviceType,
      backed_up: info.credentialBackedUp,
      aaguid: info.aaguid,
      name: input.name ?? `Passkey added ${deps.now().toISOString().slice(0, 10)}`,
    },
  };
}
