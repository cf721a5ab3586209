import { badRequest, forbidden } from '../../errors.ts';
import type { ClientMetadata, ClientRecord } from '../../records/client-record.ts';
import { loadAllVisible } from '../kit/access.ts';
import type { ManagementContext } from '../management-context.ts';
import type { ClientDeps } from './client-deps.ts';

/**
 * A tenant-bound caller sees the global clients of its tenant but may not change them, their
 * secret, links or permissions: rotating a global client's secret would hand it a token that
 * acts on every tenant (docs/contract.md §4).
 */
export function assertMayChange(ctx: ManagementContext, client: ClientRecord): void {
  if (client.is_global && !ctx.isGlobal) throw forbidden('Only a global client may change a global client.');
}

/** RFC 6749 §4.4: client_credentials is for confidential clients only; a public client listing it is a misconfiguration. */
export function assertGrantTypesFit(isPublic: boolean, grantTypes: readonly string[]): void {
  if (isPublic && grantTypes.includes('client_credentials')) {
    throw badRequest('body.client_metadata.grant_types: a public client cannot use client_credentials (RFC 6749 §4.4).');
  }
}

/** The client-authentication members of `client_metadata` (docs/client-authentication.md). */
type ClientAuthSettings = Partial<Pick<ClientMetadata, 'token_endpoint_auth_method' | 'jwks' | 'jwks_uri'>>;

/**
 * RFC 7591 §2's rules between the client-authentication members, on the client as it would be
 * stored (a PATCH: the merge, checked again on every re-merge): `none` is the public client's
 * method and the only one it has (it holds no secret and registers no key, RFC 6749 §2.1);
 * `private_key_jwt` needs the client's keys, inline (`jwks`) or by URL (`jwks_uri`), never both
 * ("MUST NOT both be present"). 400 naming the member.
 */
export function assertClientAuthFits(isPublic: boolean, metadata: ClientAuthSettings | undefined): void {
  const method = metadata?.token_endpoint_auth_method ?? undefined;
  const field = 'body.client_metadata.token_endpoint_auth_method';
  if (isPublic && method !== undefined && method !== 'none') {
    throw badRequest(`${field}: a public client has no credential; its method is none.`);
  }
  if (!isPublic && method === 'none') throw badRequest(`${field}: none is for public clients; a confidential client authenticates.`);
  if (metadata?.jwks && metadata.jwks_uri) {
    throw badRequest('body.client_metadata.jwks_uri: set jwks or jwks_uri, not both (RFC 7591 §2).');
  }
  if (method === 'private_key_jwt' && !metadata?.jwks && !metadata?.jwks_uri) {
    throw badRequest(`${field}: private_key_jwt needs the client's public keys in client_metadata.jwks or client_metadata.jwks_uri.`);
  }
}

/** What authenticates the client, in its stored form: a change of it is a key change (update:client_keys). */
const authSettingsOf = (metadata: ClientAuthSettings) =>
  JSON.stringify([metadata.token_endpoint_auth_method ?? null, metadata.jwks ?? null, metadata.jwks_uri ?? null]);

/** Whether `next` changes how the client authenticates: its method or its keys (docs/client-authentication.md). */
export function changesClientAuth(current: ClientRecord, next: ClientRecord): boolean {
  return authSettingsOf(current.client_metadata) !== authSettingsOf(next.client_metadata);
}

/** A secret expiry must lie ahead, or no request could ever use the secret (null: never expires). */
export function assertFutureExpiry(expiresAt: string | null | undefined, isPublic: boolean, now: Date): void {
  if (expiresAt === undefined || expiresAt === null) return;
  if (isPublic) throw badRequest('body.client_secret_expires_at: a public client has no secret.');
  if (Date.parse(expiresAt) <= now.getTime()) throw badRequest('body.client_secret_expires_at: must be in the future.');
}

/**
 * The Default Client is how an operator reaches the management API at all (docs/contract.md §4): it must
 * stay a confidential, global client of the default tenant that may use client_credentials.
 */
export function assertDefaultClientKept(current: ClientRecord, next: ClientRecord): void {
  if (!current.is_default) return;
  const broken =
    next.is_public !== current.is_public
      ? 'is_public'
      : next.is_global !== current.is_global
        ? 'is_global'
        : next.tenant_id !== current.tenant_id
          ? 'tenant_id'
          : !next.client_metadata.grant_types.includes('client_credentials')
            ? 'client_metadata.grant_types'
            : // bootstrap and the operator hold its secret: a key method would leave it unused (docs/client-authentication.md)
              next.client_metadata.token_endpoint_auth_method === 'private_key_jwt'
              ? 'client_metadata.token_endpoint_auth_method'
              : // an expiring secret would lock the operator out when it passes (bootstrap cannot undo it)
                next.client_secret_expires_at !== null && next.client_secret_expires_at !== current.client_secret_expires_at
                ? 'client_secret_expires_at'
                : undefined;
  if (broken)
    throw forbidden(
      `body.${broken}: the Default Client must stay a global confidential client_credentials client authenticated by a secret that does not expire.`,
    );
}

/**
 * Resources named in a link body must be visible to the caller (docs/contract.md §4): a tenant-bound caller
 * gets 404 for another tenant's resource, as for one that does not exist. The repositories check
 * again in their transaction (they also know the client's tenant and the shared system resource).
 */
export async function assertResourcesVisible(
  deps: Pick<ClientDeps, 'resources'>,
  ctx: ManagementContext,
  resourceIds: readonly string[],
  field: 'body.resources' | 'body.permissions',
): Promise<void> {
  if (!ctx.isGlobal) await loadAllVisible(deps.resources, ctx, resourceIds, { field, noun: 'resource' });
}

/**
 * The Default Client keeps its link to the management API and its permissions there (docs/contract.md §4:
 * bootstrap gives it every management scope); removing them would lock the operator out.
 */
export async function assertNotDefaultSystemLink(
  deps: Pick<ClientDeps, 'resources'>,
  client: ClientRecord,
  resourceIds: readonly string[],
): Promise<void> {
  if (!client.is_default) return;
  const found = await Promise.all([...new Set(resourceIds)].map((id) => deps.resources.get(id)));
  if (found.some((r) => r?.resource_metadata.is_system)) {
    throw forbidden("The Default Client's access to the management API cannot be revoked.");
  }
}
