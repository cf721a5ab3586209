import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, errors, type JWK, jwtVerify } from 'jose';
import { DPOP_ALGS } from './dpop-algs.ts';

/**
 * How far a proof's `iat` may be from our clock, either way (RFC 9449 §11.1 leaves the window to
 * the server): 60 s covers clock skew and a slow network, and bounds how long a `jti` is kept.
 */
export const DPOP_IAT_WINDOW_SECONDS = 60;

/** A proof is a few hundred bytes (a 4096-bit RSA key: about 1.4 KB); anything larger is refused unread. */
export const DPOP_MAX_PROOF_BYTES = 4096;

/** `jti` length bound: a 96-bit random value (RFC 9449 §4.2) is 16 characters; libraries send 22 to 43. */
const MAX_JTI_LENGTH = 256;
/** The members a private JWK carries (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** Why a proof was refused: `message` names the part (docs/client-authentication.md "Sender-constrained tokens (DPoP)"). */
export class InvalidDpopProof extends Error {
  override readonly name = 'InvalidDpopProof';
}

/** A proof that passed every check of RFC 9449 §4.3 this module can make alone. */
export interface CheckedProof {
  /** RFC 7638 thumbprint of the proof's key (SHA-256, base64url): what `cnf.jkt` binds (§6.1). */
  jkt: string;
  jti: string;
  /** Seconds. */
  iat: number;
  /** The `nonce` claim as sent; the caller decides whether it is one of ours (§8). */
  nonce: string | undefined;
}

export interface ProofExpectations {
  /** The request's method (§4.3 item 8). */
  htm: string;
  /** The endpoint's URL, built from our issuer and the route's path, never from a Host header (§4.3 item 9). */
  htu: string;
  now: Date;
  /** The access token presented with the proof (§4.3 item 10, §7): `ath` must be its hash. */
  accessToken?: string;
}

/** RFC 9449 §4.2 `ath`: base64url(SHA-256(ASCII access token)). */
export const accessTokenHash = (token: string) => createHash('sha256').update(token, 'ascii').digest('base64url');

/**
 * RFC 9449 §4.3: the `DPoP` header value is one JWT, `typ: dpop+jwt`, an allow-listed asymmetric
 * `alg`, a public `jwk` that verifies the signature, `htm` and `htu` of this request, `iat` within
 * the window, a bounded `jti`, and `ath` when a token comes with it. The `jti`'s single use and
 * the `nonce` are checked by the caller, which owns the store and the nonce key.
 */
export async function checkDpopProof(proof: string, expect: ProofExpectations): Promise<CheckedProof> {
  if (proof.length > DPOP_MAX_PROOF_BYTES) throw new InvalidDpopProof(`is longer than ${DPOP_MAX_PROOF_BYTES} bytes`);
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw new InvalidDpopProof('is not a JWT');
  }
  if (header.typ !== 'dpop+jwt') throw new InvalidDpopProof('typ must be dpop+jwt');
  if (typeof header.alg !== 'string' || !(DPOP_ALGS as readonly string[]).includes(header.alg)) {
    throw new InvalidDpopProof(`alg must be one of ${DPOP_ALGS.join(', ')}`);
  }
  const jwk = header.jwk as Record<string, unknown> | undefined;
  if (!jwk || typeof jwk !== 'object') throw new InvalidDpopProof('jwk header is missing');
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) throw new InvalidDpopProof('jwk must be a public key');

  let payload: Record<string, unknown>;
  try {
    // jose checks the signature with the embedded key, refusing a private or unusable one.
    ({ payload } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...DPOP_ALGS], currentDate: expect.now }));
  } catch (err) {
    // jose checks the registered claims it knows (iat a number, exp and nbf if present) after the signature.
    if (err instanceof errors.JWTClaimValidationFailed) throw new InvalidDpopProof(`${err.claim} is not acceptable`);
    if (err instanceof errors.JOSEError) throw new InvalidDpopProof('signature does not verify with its jwk');
    throw err;
  }

  const { jti, htm, htu, iat, ath, nonce } = payload;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) {
    throw new InvalidDpopProof(`jti must be a string of 1 to ${MAX_JTI_LENGTH} characters`);
  }
  if (htm !== expect.htm) throw new InvalidDpopProof('htm is not the method of this request');
  if (typeof htu !== 'string' || !sameTarget(htu, expect.htu)) throw new InvalidDpopProof('htu is not the URL of this endpoint');
  const nowSeconds = Math.floor(expect.now.getTime() / 1000);
  if (typeof iat !== 'number' || !Number.isFinite(iat) || Math.abs(iat - nowSeconds) > DPOP_IAT_WINDOW_SECONDS) {
    throw new InvalidDpopProof(`iat must be within ${DPOP_IAT_WINDOW_SECONDS} s of the server's time`);
  }
  if (expect.accessToken !== undefined) {
    if (typeof ath !== 'string' || !equalStrings(ath, accessTokenHash(expect.accessToken))) {
      throw new InvalidDpopProof('ath is not the hash of the access token');
    }
  }
  if (nonce !== undefined && (typeof nonce !== 'string' || nonce.length > 256)) throw new InvalidDpopProof('nonce must be a short string');
  const jkt = await calculateJwkThumbprint(jwk as JWK, 'sha256');
  return { jkt, jti, iat, nonce };
}

/**
 * §4.3 item 9: the URI without query and fragment, compared after the normalisation of RFC 3986
 * §6.2.2 and §6.2.3 that WHATWG URL parsing applies (scheme and host case, default port, dot
 * segments, percent-encoding case).
 */
function sameTarget(htu: string, expected: string): boolean {
  if (htu.length > 2048) return false;
  const a = URL.parse(htu);
  const b = URL.parse(expected);
  if (!a || !b) return false;
  return a.protocol === b.protocol && a.host === b.host && a.pathname === b.pathname && a.username === '' && a.password === '';
}

/** Equal-length strings compared without an early exit (the hash is no secret, but costs nothing to compare so). */
function equalStrings(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
