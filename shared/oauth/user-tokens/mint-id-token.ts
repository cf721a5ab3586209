import { createHash } from 'node:crypto';
import type { KeyStore } from '../../keys/key-store.ts';

export interface IdTokenInput {
  issuer: string;
  userId: string;
  clientId: string;
  /** `client_metadata.id_token.expiration_lifetime` (seconds). */
  lifetime: number;
  /** NumericDate of the login (OIDC Core §2 `auth_time`): never the refresh's time (§12.2). */
  authTime: number;
  /** The `nonce` of the authentication request, echoed (§3.1.3.6); never on a refresh (§12.2 errata). */
  nonce?: string | undefined;
  sid: string;
  /** The access token issued with it, for `at_hash`; none for `response_type=id_token` (OIDC Core §3.2.2.10). */
  accessToken: string | undefined;
  /** The claims of the granted scopes (`userClaims`, as `/userinfo` releases them). */
  claims: Record<string, unknown>;
  now: Date;
}

/**
 * An OIDC ID token (OIDC Core §2): `iss`, `sub`, `aud` = the client, `exp`, `iat`, `auth_time`,
 * `nonce` when sent, `at_hash` when an access token comes with it, `sid`, and the claims of the granted scopes. Signed ES256 with the
 * service's current key (`kid` in the header, JWKS at discovery), so every client verifies it the
 * same way whatever the access token's Resource uses.
 */
export async function mintIdToken(input: IdTokenInput, keys: KeyStore): Promise<string> {
  const iat = Math.floor(input.now.getTime() / 1000);
  const payload: Record<string, unknown> = {
    // Profile claims first: the protocol claims below always win over a same-named profile claim.
    ...input.claims,
    iss: input.issuer,
    sub: input.userId,
    aud: input.clientId,
    exp: iat + input.lifetime,
    iat,
    auth_time: input.authTime,
    ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
    ...(input.accessToken !== undefined ? { at_hash: atHash(input.accessToken) } : {}),
    sid: input.sid,
  };
  return keys.signJwt('ES256', { typ: 'JWT' }, payload);
}

/**
 * OIDC Core §3.1.3.6: the base64url of the left-most half of the hash of the access token's ASCII
 * octets, with the hash of the ID token's `alg` (ES256: SHA-256, so 16 bytes).
 */
export const atHash = (accessToken: string): string =>
  createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
