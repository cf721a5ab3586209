import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * TOTP (RFC 6238) as docs/contract.md §7.3 pins it: HMAC-SHA-1, 6 digits, 30 s steps from the Unix epoch,
 * one step of drift either way (RFC 6238 §5.2 recommends at most one). What authenticator apps
 * expect from an `otpauth://` URI without parameters, so every app reads it the same way.
 */
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DRIFT_STEPS = 1;
/** RFC 4226 §4 R6: a shared secret of at least 128 bits, 160 recommended (the HMAC-SHA-1 block fits it). */
const SECRET_BYTES = 20;

/** A new random shared secret. */
export const generateTotpSecret = (): Buffer => randomBytes(SECRET_BYTES);

/** RFC 6238 §4.2: the time step T = floor((unix time - T0) / X), T0 = 0, X = 30 s. */
export const totpStep = (at: Date, period = TOTP_PERIOD_SECONDS): number => Math.floor(at.getTime() / 1000 / period);

/** RFC 4226 §5.3 HOTP: HMAC-SHA-1 over the 8-byte counter, dynamic truncation, modulo 10^digits. */
export function hotp(secret: Buffer, counter: number, digits = TOTP_DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(message).digest();
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The RFC 6238 code of the step that holds `at`. */
export const totp = (secret: Buffer, at: Date, digits = TOTP_DIGITS): string => hotp(secret, totpStep(at), digits);

/** A code as the `otp` parameter may carry it: exactly six ASCII digits. */
export const isTotpCodeShape = (code: string): boolean => /^[0-9]{6}$/.test(code);

/**
 * The time step whose code `code` is, among the current step and one either side (RFC 6238 §5.2),
 * or undefined. Every candidate is computed and compared in constant time, so the answer takes as
 * long whichever step matches, or none. The caller refuses a step it accepted before (§5.2: "the
 * verifier MUST NOT accept the second attempt of the OTP after the successful validation").
 */
export function matchTotpStep(secret: Buffer, code: string, at: Date): number | undefined {
  const presented = Buffer.from(isTotpCodeShape(code) ? code : '------');
  const now = totpStep(at);
  let matched: number | undefined;
  for (let step = now - TOTP_DRIFT_STEPS; step <= now + TOTP_DRIFT_STEPS; step++) {
    const equal = timingSafeEqual(Buffer.from(hotp(secret, step)), presented);
    // The earliest matching step: a code valid for two steps (1 in 10^6) is taken as the older one.
    if (equal && matched === undefined) matched = step;
  }
  return matched;
}

/**
 * The Key Uri Format authenticator apps read (Google Authenticator's, the de facto standard):
 * `otpauth://totp/{issuer}:{account}?secret=...&issuer=...&algorithm=SHA1&digits=6&period=30`.
 */
export function otpauthUri(secret: Buffer, { issuer, account }: { issuer: string; account: string }): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({
    secret: base32Encode(secret),
    issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_PERIOD_SECONDS),
  });
  return `otpauth://totp/${label}?${query.toString()}`;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 §6 base32, without the `=` padding (otpauth URIs and apps omit it). */
export function base32Encode(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= 0xff; // keep only the bits not yet written
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** RFC 4648 §6 base32 to bytes; padding and case are tolerated; undefined for anything else. */
export function base32Decode(text: string): Buffer | undefined {
  const clean = text.replace(/=+$/, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const index = ALPHABET.indexOf(ch);
    if (index < 0) return undefined;
    value = ((value << 5) | index) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}
