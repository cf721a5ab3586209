import { badRequest, oauthError } from '../errors.ts';

const FORM = /^application\/x-www-form-urlencoded/i;

/**
 * What the form parser (@middy/http-urlencode-body-parser: `node:querystring`'s `parse`) reads of
 * a body at most; it drops the pairs after these without a word.
 */
const MAX_FORM_PAIRS = 1000;

/**
 * RFC 6749 §3.1 / §3.2: "Request and response parameters MUST NOT be included more than once."
 * The form parser already turned every repeated key into an array (a form value is otherwise a
 * string), so the parsed body says it without parsing the raw body a second time. A body with
 * more pairs than the parser reads is refused too: a repeat among the dropped pairs would
 * otherwise pass unseen.
 */
export function rejectDuplicateParams(
  body: Readonly<Record<string, unknown>> | undefined,
  rawBody: string | undefined,
  contentType: string | undefined,
): void {
  if (!rawBody || !FORM.test(contentType ?? '')) return;
  if (pairsAbove(rawBody, MAX_FORM_PAIRS)) throw badRequest(`body: must have at most ${MAX_FORM_PAIRS} parameters.`);
  for (const key in body) {
    if (Array.isArray(body[key])) throw oauthError(400, 'invalid_request', `body.${key}: must not be repeated.`);
  }
}

/** More than `max` `&`-separated pairs (counted without splitting the body). */
function pairsAbove(raw: string, max: number): boolean {
  let pairs = 1;
  for (let i = raw.indexOf('&'); i !== -1; i = raw.indexOf('&', i + 1)) if (++pairs > max) return true;
  return false;
}
