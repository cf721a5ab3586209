import * as v from 'valibot';

/**
 * docs/contract.md §8 "Strings": the character rules of every name, description, URL and identifier, now
 * and later (field kits put `safeText()` in each string field's pipe). Refused, as a 400 naming
 * the field:
 * - C0 and C1 control characters (U+0000-U+001F, U+007F-U+009F): NUL truncates in C callers and
 *   logs, CR/LF split log lines and headers;
 * - bidi controls (U+202A-U+202E, U+2066-U+2069): they make `evil‮moc.rab` read as another name
 *   (Trojan Source, CVE-2021-42574);
 * - lone surrogates: not Unicode, not encodable as UTF-8 (they would come back as U+FFFD);
 * - values blank after removing white space and zero-width characters: a name nobody can see.
 *
 * `multiline` (free text such as descriptions) lets TAB, LF and CR through; `allowEmpty` lets
 * exactly `""` through (a description cleared on modify). Nothing is rewritten: the value is
 * stored as sent or refused.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this module's purpose (docs/contract.md §8)
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, letting TAB, LF and CR through
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/u;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/u;
/** White space (`\s` covers Unicode Zs, TAB, LF, NBSP, U+FEFF...) and the zero-width characters. */
const INVISIBLE = /[\s\u180E\u200B-\u200F\u2060-\u2064\uFEFF]/gu;

export interface SafeTextOptions {
  multiline?: boolean;
  allowEmpty?: boolean;
}

/** Why `s` is refused, or undefined when it passes. */
export function unsafeTextReason(s: string, options: SafeTextOptions = {}): string | undefined {
  if (!s.isWellFormed()) return 'must not contain lone surrogates';
  if ((options.multiline ? CONTROL_BUT_LINES : CONTROL).test(s)) return 'must not contain control characters';
  if (BIDI.test(s)) return 'must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069)';
  if (s === '' && options.allowEmpty) return undefined;
  if (s.replace(INVISIBLE, '') === '') return 'must not be blank';
  return undefined;
}

/** The valibot action: one issue with the reason; the pipeline prefixes the field's path. */
export const safeText = (options: SafeTextOptions = {}) =>
  v.rawCheck<string>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const reason = unsafeTextReason(dataset.value, options);
    if (reason) addIssue({ message: reason });
  });
