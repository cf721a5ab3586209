import { oauthError } from '../errors.ts';

/**
 * RFC 6749 §3.1 / §3.2: "Request and response parameters MUST NOT be included more than once."
 * Works on the raw form body, since the parsed body keeps only one value of a repeated key.
 */
export function rejectDuplicateParams(rawBody: string | undefined, contentType: string | undefined): void {
  if (!rawBody || !/^application\/x-www-form-urlencoded/i.test(contentType ?? '')) return;
  const seen = new Set<string>();
  for (const [key] of new URLSearchParams(rawBody)) {
    if (seen.has(key)) throw oauthError(400, 'invalid_request', `body.${key}: must not be repeated.`);
    seen.add(key);
  }
}
