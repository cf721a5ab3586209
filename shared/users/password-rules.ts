import { dictionary } from '@zxcvbn-ts/language-common';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

/**
 * docs/contract.md §7.2: what is wrong with a new password, as the message of a 400 naming `body.password`
 * (callers add the field name), or undefined when it may be used:
 * - 8 to 128 characters, counted as Unicode code points (NIST SP 800-63B §5.1.1.2);
 * - not the user's email or username (compared without case, as those are unique without case);
 * - not a common password (COMMON_PASSWORDS below), compared without case.
 * The message never repeats the password (docs/contract.md §8).
 */
export function passwordProblem(password: string, user: { email?: string | undefined; username?: string | undefined }): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters long.`;
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters long.`;
  const folded = password.normalize('NFKC').toLowerCase();
  if (user.email !== undefined && folded === user.email.normalize('NFKC').toLowerCase()) return 'must not be the email address.';
  if (user.username !== undefined && folded === user.username.normalize('NFKC').toLowerCase()) return 'must not be the username.';
  if (isCommonPassword(folded)) return 'is too common; choose another one.';
  return undefined;
}

/**
 * The common-password list: `passwords-common` of @zxcvbn-ts/language-common (MIT, the maintained
 * TypeScript port of Dropbox's zxcvbn; 49,233 passwords ranked by frequency in leaked sets, all
 * lower case). Only the entries of at least 8 characters can matter, as shorter ones fail the
 * length rule first: 17,950 of them, held in a Set built on first use (about 5 ms, about 1 MB of
 * heap) and looked up in O(1) (a hash of the string, under a microsecond). A Set rather than a
 * Bloom filter: the list is small enough to hold exactly, so there are no false positives.
 */
let common: ReadonlySet<string> | undefined;

/** Whether a lower-cased password is on the common-password list. */
export function isCommonPassword(lowerCased: string): boolean {
  common ??= new Set(dictionary['passwords-common'].filter((p) => [...p].length >= PASSWORD_MIN_LENGTH));
  return common.has(lowerCased);
}
