import { randomInt } from 'node:crypto';

/**
 * RFC 8628 §6.1: 20 consonants, no vowels (no words spelled by accident) and no digits (no
 * 0/O or 1/I/L to confuse): `BCDFGHJKLMNPQRSTVWXZ`.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
/** 8 characters: 20^8 ≈ 2.56·10^10 codes, about 34.5 bits (RFC 8628 §6.1's own example). */
export const USER_CODE_LENGTH = 8;

/** A new user code, normalised (8 characters, no dash), from the CSPRNG. */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** How a code is shown and sent to the device: `XXXX-XXXX` (RFC 8628 §6.1: a dash helps people read it). */
export const formatUserCode = (normalised: string): string => `${normalised.slice(0, 4)}-${normalised.slice(4)}`;

const NOT_TYPED = /[\s\-–—]/g;
const NORMALISED = new RegExp(`^[${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}}$`);

/**
 * What a person typed, as the stored form (RFC 8628 §6.1: "case-insensitive ... punctuation
 * ignored"): upper case, dashes and white space removed. Undefined when it cannot be a code of
 * ours (wrong length, a character outside the alphabet): it is then a wrong code without a read.
 */
export function normaliseUserCode(typed: string): string | undefined {
  if (typed.length > 64) return undefined;
  const code = typed.replace(NOT_TYPED, '').toUpperCase();
  return NORMALISED.test(code) ? code : undefined;
}
