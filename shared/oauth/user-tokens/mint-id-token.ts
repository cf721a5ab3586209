import { createHash } from 'node:crypto';
import type { KeyStore } from '../../keys/key-store.ts';
import type { IdTokenSigningAlg } from '../../records/client-record.ts';
import type { AuthMethod } from '../../store/sessions/sessions-repository.ts';

export interface IdTokenInput {
  issuer: string;
  userId: string;
  clientId: string;
  /**
   * The client's `client_metadata.id_token_signed_response_alg` (OIDC Registration §2: RS256 when
   * it registered none). Only ever the client's: nothing in the request chooses it.
   */
  alg: IdTokenSigningAlg;
  /** `client_metadata.id_token.expiration_lifetime` (seconds). */
  lifetime: number;
  /** NumericDate of the login (OIDC Core §2 `auth_time`): never the refresh's time (§12.2). */
  authTime: number;
  /** RFC 8176 how the person signed in; none (an item from before it was kept): no claim. */
  amr?: AuthMethod[] | undefined;
  /** The `acr` the login met of those the client asked for (OIDC Core §3.1.2.1); none: no claim (§5.5.1.1). */
  acr?: string | undefined;
  /** The `nonce` of the authentication request, echoed (§3.1.3.6); never on a refresh (§12.2 errata). */
  nonce?: string | undefined;
  sid: string;
  /** The access token issued with it, for `at_hash`; none for `response_type=id_token` (OIDC Core §3.2.2.10). */
  accessToken: string | undefined;
  /** The claims of the granted scopes (`idTokenClaims`: `/userinfo`'s, `updated_at` a NumericDate). */
  claims: Record<string, unknown>;
  now: Date;
}

/**
 * An OIDC ID token (OIDC Core §2): `iss`, `sub`, `aud` = the client, `exp`, `iat`, `auth_time`,
 * `amr` and `acr` when the login has them, `nonce` when sent, `at_hash` when an access token comes with it, `sid`, and the claims of the
 * granted scopes. Signed with the current key of the client's algorithm (`kid` in the header, JWKS
 * at discovery): a relying party that registered nothing expects RS256 (OIDC Core §3.1.3.7 step 7),
 * whatever the access token's Resource uses (docs/client-authentication.md "ID token signing algorithm").
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
    // Undefined members are not serialised (JSON): a login without them gives no claim.
    amr: input.amr,
    acr: input.acr,
    ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
    ...(input.accessToken !== undefined ? { at_hash: atHash(input.accessToken, input.alg) } : {}),
    sid: input.sid,
  };
  return keys.signJwt(input.alg, { typ: 'JWT' }, payload);
}

/** The hash of each ID token algorithm (RFC 7518 §3.3 RS256, §3.4 ES256: both SHA-256). */
const HASH_OF: Readonly<Record<IdTokenSigningAlg, { name: string; bytes: number }>> = {
  RS256: { name: 'sha256', bytes: 32 },
  ES256: { name: 'sha256', bytes: 32 },
};

/**
 * OIDC Core §3.1.3.6 / §3.2.2.9: the base64url of the left-most half of the hash of the access
 * token's ASCII octets, with the hash of the ID token's `alg` (RS256 and ES256: SHA-256, 16 bytes).
 */
export function atHash(accessToken: string, alg: IdTokenSigningAlg): string {
  const hash = HASH_OF[alg];
  return createHash(hash.name)
    .update(accessToken, 'ascii')
    .digest()
    .subarray(0, hash.bytes / 2)
    .toString('base64url');
}
