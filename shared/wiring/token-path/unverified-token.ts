import { isStorableClientId } from '../../oauth/authenticate-client.ts';
import { type RevocationRef, revocationRef } from '../../records/revocation-ref.ts';

/**
 * What the token path reads about a token before verifying it (shared/wiring/token-path/batch-read-planner.ts
 * `preloadTokens`): its parts and revocation binding, decoded without any check, so a batch read
 * can fetch its client, user and revocation entry at once. Never a basis for a decision: the
 * verification that follows is.
 */
export type TokenParts = { header: Record<string, unknown>; payload: Record<string, unknown> };

/** A JWT's header and payload, unverified: only ever used to choose what to read. */
export function unverifiedParts(token: string): TokenParts | undefined {
  const [header, payload] = token.length <= 8192 ? token.split('.') : [];
  if (!header || !payload) return undefined;
  try {
    const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    const parts = { header: decode(header), payload: decode(payload) };
    return isObject(parts.header) && isObject(parts.payload) ? (parts as TokenParts) : undefined;
  } catch {
    return undefined;
  }
}

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);

/** A JWT's revocation binding (jti, verifier, client), unverified. */
export function unverifiedRef({ header, payload }: TokenParts): RevocationRef | undefined {
  const ref = revocationRef(header, payload);
  return ref && /^[A-Za-z0-9._~-]{1,128}$/.test(ref.jti) && isStorableClientId(ref.clientId) ? ref : undefined;
}
