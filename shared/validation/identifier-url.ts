import * as v from 'valibot';
import { safeText } from './safe-text.ts';

/**
 * docs/contract.md §8: `identifier_url` is unique after RFC 3986 §6.2.2 normalisation, so look-alikes of one
 * identifier cannot coexist. The value is stored (and becomes the tokens' `aud`) in its normal
 * form:
 * - §6.2.2.1 case: scheme and host lower-case, percent-encoding hex digits upper-case;
 * - §6.2.2.2 percent-encoding: encoded unreserved characters (ALPHA DIGIT - . _ ~) decoded;
 * - §6.2.2.3 path segments: `.` and `..` removed (also their encoded forms);
 * - §6.2.3 scheme-based: the scheme's default port dropped, an empty http(s) path is `/`;
 * - RFC 3987 §3.1: an IRI is stored as the URI it maps to (non-ASCII percent-encoded as UTF-8,
 *   an internationalised host in punycode), so the stored form is ASCII and its length in
 *   characters is its length in bytes.
 * Empty path segments (`/a//b`) are significant in RFC 3986 and cannot be normalised away: they
 * are refused instead, as is user info (`https://user@host/`), which no API identifier needs and
 * which makes a look-alike (`https://good.example@evil.example/`).
 */

/** RFC 8707 §2: an absolute URI without a fragment. */
function isResourceIndicator(s: string): boolean {
  if (/\s/.test(s) || s.includes('#')) return false;
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(s) && URL.canParse(s);
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** §6.2.2.1-2: decode what need not be encoded; upper-case the hex of what stays encoded. */
const normalisePercent = (s: string) =>
  s.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(c) ? c : `%${hex.toUpperCase()}`;
  });

/**
 * The normal form of an absolute URI, or a reason it has none. The WHATWG URL parser does the
 * case, dot-segment and default-port steps (for http, https, ws, wss, ftp); the rest is here.
 */
export function normaliseIdentifierUrl(s: string): { url: string } | { reason: string } {
  if (!isResourceIndicator(s)) return { reason: 'must be an absolute URI without a fragment (RFC 8707 §2)' };
  const url = new URL(s);
  if (url.username || url.password) return { reason: 'must not contain user information' };
  if (url.host) url.host = url.host.toLowerCase(); // opaque hosts of other schemes too (§6.2.2.1)
  if (url.pathname.includes('//') && url.host) return { reason: 'must not contain empty path segments' };
  return { url: normalisePercent(url.href) };
}

/** The normal form, or the input unchanged when it has none (lookups: such a value names nothing stored). */
export const normalisedOrSame = (s: string): string => {
  const n = normaliseIdentifierUrl(s);
  return 'url' in n ? n.url : s;
};

/** The valibot piece: checks the characters (safe-text.ts), then normalises or refuses. */
export const identifierUrlSchema = (maxLength: number) =>
  v.pipe(
    v.string('must be a string'),
    safeText(),
    v.rawTransform<string, string>(({ dataset, addIssue, NEVER }) => {
      const n = normaliseIdentifierUrl(dataset.value);
      if ('reason' in n) {
        addIssue({ message: n.reason });
        return NEVER;
      }
      return n.url;
    }),
    // The normal form is part of a key (the uniqueness marker, 2048 bytes at most); it is ASCII.
    v.maxLength(maxLength, `must be at most ${maxLength} characters`),
  );
