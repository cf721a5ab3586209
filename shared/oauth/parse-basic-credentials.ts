import { oauthError } from '../errors.ts';

export interface BasicCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * RFC 6749 §2.3.1: `Authorization: Basic base64(urlencode(client_id) ":" urlencode(secret))`.
 * Returns undefined when the header is absent or another scheme.
 */
export function parseBasicCredentials(authorization: string | undefined): BasicCredentials | undefined {
  const m = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(authorization ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw oauthError(400, 'invalid_request', 'header.authorization: malformed Basic credentials.');
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    throw oauthError(400, 'invalid_request', 'header.authorization: malformed Basic credentials.');
  }
}
