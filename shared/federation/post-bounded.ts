import { type BoundedFetchOptions, requestJson } from './fetch-bounded.ts';

/**
 * One POST of a form to a provider's token endpoint (RFC 6749 §4.1.3), held to the rules of the
 * GET adapter (fetch-bounded.ts, docs/federation.md "Reading a provider"): the URL policy, public
 * addresses only (checked in the socket's own lookup), a connect and a total timeout, a size
 * bound, no redirect followed. The answer is JSON whatever its status: a token endpoint answers
 * its errors as a JSON body with 400 or 401 (RFC 6749 §5.2), which the caller reads.
 */

/** A token response is an ID token, an access token and a few members: a few KB. */
export const TOKEN_RESPONSE_MAX_BYTES = 64 * 1024;

export interface PostAnswer {
  status: number;
  body: unknown;
}

/** The port the federated login posts through: a form, optional extra headers (client authentication). */
export type PostForm = (url: URL, form: Record<string, string>, headers?: Record<string, string>) => Promise<PostAnswer>;

export function boundedFormPoster(options: BoundedFetchOptions, maxBytes = TOKEN_RESPONSE_MAX_BYTES): PostForm {
  return (url, form, headers = {}) => postForm(url, form, headers, maxBytes, options);
}

async function postForm(
  url: URL,
  form: Record<string, string>,
  headers: Record<string, string>,
  maxBytes: number,
  options: BoundedFetchOptions,
): Promise<PostAnswer> {
  const body = new URLSearchParams(form).toString();
  return requestJson(
    url,
    {
      method: 'POST',
      headers: {
        ...headers,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
      maxBytes,
      okOnly: false,
    },
    options,
  );
}
