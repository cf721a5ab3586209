import { createHmac, randomUUID } from 'node:crypto';
import type { KeyStore } from '../keys/key-store.ts';
import type { TokenResource } from './oauth-deps.ts';

export interface MintInput {
  issuer: string;
  /** User id, or the client id for client_credentials (docs/contract.md §5). */
  subject: string;
  clientId: string;
  tenantId: string;
  resource: TokenResource;
  scopes: readonly string[];
  /**
   * `permissions` of an RBAC Resource when they are not simply the scopes: a user token's scope
   * also holds OIDC scopes, its permissions only the Resource's (docs/contract.md §7.1).
   */
  permissions?: readonly string[];
  /** User tokens: the login they come from (`sid`); revoking its family ends them. */
  sid?: string;
  /** RFC 9449 §6.1: the thumbprint of the DPoP key the token is bound to (`cnf.jkt`). */
  jkt?: string | undefined;
  now: Date;
}

export interface MintedToken {
  token: string;
  jti: string;
  expiresIn: number;
}

const HS256_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'at+jwt' })).toString('base64url');

/**
 * An RFC 9068 JWT access token: `typ: at+jwt`, iss, sub, aud, client_id, scope, iat, nbf, exp, jti,
 * tenant_id, `permissions` when the Resource has RBAC on (docs/contract.md §5), `sid` for user tokens, and `cnf.jkt`
 * for a DPoP-bound token (RFC 9449 §6.1). ES256/RS256 tokens are
 * signed by the key store (no KMS call once warm); HS256 with the Resource's own secret.
 */
export async function mintAccessToken(input: MintInput, keys: KeyStore): Promise<MintedToken> {
  const iat = Math.floor(input.now.getTime() / 1000);
  const lifetime = input.resource.token_lifetime;
  const jti = randomUUID();
  const payload: Record<string, unknown> = {
    iss: input.issuer,
    sub: input.subject,
    aud: input.resource.identifier_url,
    client_id: input.clientId,
    scope: input.scopes.join(' '),
    iat,
    nbf: iat,
    exp: iat + lifetime,
    jti,
    tenant_id: input.tenantId,
  };
  if (input.sid !== undefined) payload.sid = input.sid;
  if (input.jkt !== undefined) payload.cnf = { jkt: input.jkt };
  if (input.resource.rbac_enabled) payload.permissions = [...(input.permissions ?? input.scopes)];
  const alg = input.resource.signing_algorithm;
  const token = alg === 'HS256' ? signHs256(payload, input.resource.signing_secret) : await keys.signJwt(alg, { typ: 'at+jwt' }, payload);
  return { token, jti, expiresIn: lifetime };
}

function signHs256(payload: Record<string, unknown>, secret: string | undefined): string {
  if (!secret) throw new Error('HS256 resource without a signing secret');
  const input = `${HS256_HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}
