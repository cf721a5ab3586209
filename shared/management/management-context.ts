import * as v from 'valibot';
import { forbidden, notFound, unauthorized } from '../errors.ts';
import type { Caller } from '../http/authenticate.ts';
import { validate } from '../http/validate.ts';
import { isUserToken, type PrincipalReads } from '../ports/token-path.ts';
import { DEFAULT_TENANT_ID } from '../records/tenant-record.ts';
import type { UserRecord } from '../records/user-record.ts';

/** Reads the user of a user token (its tenant, whether it is blocked). */
export type FindUser = (userId: string) => Promise<Pick<UserRecord, 'id' | 'tenant_id' | 'blocked'> | undefined>;

const deadToken = (message: string) =>
  unauthorized(message, { headers: { 'WWW-Authenticate': 'Bearer realm="identity", error="invalid_token"' } });

/** Who acts, on which tenant (docs/contract.md §4). */
export interface ManagementContext {
  /** The caller's `sub`, written to `created_by` / `updated_by`. */
  actor: string;
  /** The tenant this request works in: lists and creates use it. */
  tenantId: string;
  /** A global client may act on any tenant (spec 2.2 is_global). */
  isGlobal: boolean;
  /** The management scopes the caller holds now (held-scopes.ts); grants never exceed them (docs/contract.md §8). */
  scopes: ReadonlySet<string>;
}

const TenantHeader = v.optional(v.pipe(v.string(), v.uuid('must be a UUID')));

/**
 * docs/contract.md §4 tenant rules. Single-tenant mode: everything is in the default tenant and the
 * `tenant_id` header is ignored. Multi-tenant mode: a global client's token picks the tenant with
 * the header (default: the default tenant); any other caller works in its own tenant only, and a
 * header naming another tenant is 403.
 *
 * A user's token (`sub` ≠ `client_id`, docs/contract.md §7.6) works in the user's own tenant, never
 * globally, whatever its client is: the header may only name that tenant (403). A deleted or
 * blocked user's token is 401 (docs/contract.md §7.1). A user token minted by a tenant-bound client of
 * another tenant than the user's is refused (403): no grant issues one, so it is not ours to honour.
 */
export async function managementContext(
  caller: Caller | undefined,
  headers: Record<string, string | undefined>,
  multiTenant: boolean,
  findClient: PrincipalReads['findClient'],
  findUser: FindUser,
): Promise<Omit<ManagementContext, 'scopes'>> {
  if (!caller) throw new Error('managementContext on a route without bearer auth');
  const actor = caller.claims.sub;
  const client = await findClient(caller.claims.client_id);
  // A deleted client's tokens die with it (as its refresh tokens and secret do).
  if (!client) throw deadToken('The client of this token no longer exists.');
  if (isUserToken(caller.claims)) {
    const user = await findUser(actor);
    if (!user || user.blocked) throw deadToken('The user of this token no longer exists or is blocked.');
    if (!client.is_global && client.tenant_id !== user.tenant_id) throw forbidden("This token's client and user are in different tenants.");
    const requested = multiTenant ? validate(TenantHeader, headers.tenant_id, 'header.tenant_id') : undefined;
    if (requested && requested !== user.tenant_id) throw forbidden('header.tenant_id: a user may only act on its own tenant.');
    return { actor, tenantId: user.tenant_id, isGlobal: false };
  }
  const isGlobal = client.is_global;
  const ownTenant = client.tenant_id;
  if (!multiTenant) return { actor, tenantId: DEFAULT_TENANT_ID, isGlobal: true };
  const requested = validate(TenantHeader, headers.tenant_id, 'header.tenant_id');
  if (isGlobal) return { actor, tenantId: requested ?? DEFAULT_TENANT_ID, isGlobal };
  if (requested && requested !== ownTenant) throw forbidden('header.tenant_id: this client may only act on its own tenant.');
  return { actor, tenantId: ownTenant, isGlobal };
}

/** A record of another tenant is invisible to a non-global caller: 404, not 403 (docs/contract.md §4). */
export function assertVisible<T extends { tenant_id: string }>(record: T | undefined, ctx: ManagementContext, what: string): T {
  if (!record || (!ctx.isGlobal && record.tenant_id !== ctx.tenantId)) throw notFound(`${what} not found.`);
  return record;
}
