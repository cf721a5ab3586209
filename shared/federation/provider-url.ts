import { ProviderError } from './federation-errors.ts';

/**
 * The URL policy for everything read from a provider (docs/federation.md "Reading a provider"):
 * https only; plain http only to a loopback host (127.0.0.0/8, ::1, `localhost`) and only when
 * the stage allows it (local mode, where a test provider listens on 127.0.0.1). No credentials in
 * the URL, no fragment (OIDC Discovery §2: an issuer has neither query nor fragment; a JWKS URL has
 * no use for a fragment either), at most 2,048 characters.
 */
export const MAX_PROVIDER_URL_LENGTH = 2048;

export interface UrlPolicy {
  /** Local mode: http to a loopback host is allowed. */
  allowLoopbackHttp: boolean;
}

const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** `hostname` as `URL` gives it: IPv6 in brackets. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || LOOPBACK_V4.test(host);
}

/** The parsed URL when the policy allows it; a `ProviderError` naming the rule otherwise. */
export function checkProviderUrl(raw: string, policy: UrlPolicy): URL {
  if (raw.length > MAX_PROVIDER_URL_LENGTH)
    throw new ProviderError('bad_url', `The provider URL exceeds ${MAX_PROVIDER_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProviderError('bad_url', 'The provider URL is not an absolute URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ProviderError('not_https', `The provider URL ${url.origin} is not https.`);
  }
  if (url.username || url.password) throw new ProviderError('bad_url', 'The provider URL must not carry credentials.');
  if (url.hash) throw new ProviderError('bad_url', `The provider URL ${url.origin}${url.pathname} must not carry a fragment.`);
  if (url.protocol === 'http:' && !(policy.allowLoopbackHttp && isLoopbackHost(url.hostname))) {
    throw new ProviderError(
      'not_https',
      `The provider URL ${url.origin} is not https (plain http is allowed only to loopback in local mode).`,
    );
  }
  return url;
}
