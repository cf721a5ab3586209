import type { ClientRecord } from '../../records/client-record.ts';
import type { ManagementContext } from '../management-context.ts';
import { assertHoldsEveryManagementScope, holdsEveryManagementScope } from '../no-escalation.ts';
import type { UpdateClientInput } from './client-body-schemas.ts';
import type { ClientDeps } from './client-deps.ts';
import { changesClientAuth } from './client-guards.ts';

/**
 * Clients linked to the management API (docs/security.md "The management API"). Such a client can
 * carry any user's management token, so the link and what decides where the client's tokens go
 * are changed only by a caller holding every management scope (no-escalation.ts
 * `assertHoldsEveryManagementScope`).
 */

/** `POST /clients/{id}/resources`: naming the management API needs every management scope. */
export async function assertMayLinkManagementApi(
  deps: Pick<ClientDeps, 'managementApi'>,
  ctx: ManagementContext,
  resourceIds: readonly string[],
): Promise<void> {
  const api = await deps.managementApi();
  if (api && resourceIds.includes(api.id)) assertHoldsEveryManagementScope(ctx.scopes);
}

/**
 * Whether `next` changes who can receive the client's tokens: first party (consent skipped),
 * public (no secret needed at /token), how it authenticates (its method and keys: whoever holds the
 * key receives its tokens), the redirect URIs (where /authorize delivers codes and tokens) or the
 * grant types (which flows deliver them). Any change counts, narrowing too: the
 * rule stays one simple line, and narrowing a linked client is an administrator's work anyway.
 * Post-logout redirect URIs and origins carry no token and are not guarded.
 */
export function changesTokenDelivery(current: ClientRecord, next: ClientRecord): boolean {
  return (
    current.is_first_party !== next.is_first_party ||
    current.is_public !== next.is_public ||
    changesClientAuth(current, next) ||
    !sameList(current.client_metadata.urls?.redirect_uris, next.client_metadata.urls?.redirect_uris) ||
    !sameList(current.client_metadata.grant_types, next.client_metadata.grant_types)
  );
}

const sameList = (a: unknown, b: unknown) => JSON.stringify(sortedList(a)) === JSON.stringify(sortedList(b));
const sortedList = (x: unknown) => (Array.isArray(x) ? [...x].map(String).sort() : x);

/** Whether the body names any field `changesTokenDelivery` compares. */
function touchesTokenDelivery(body: UpdateClientInput): boolean {
  const metadata = body.client_metadata;
  return (
    body.is_first_party !== undefined ||
    body.is_public !== undefined ||
    metadata?.grant_types !== undefined ||
    metadata?.token_endpoint_auth_method !== undefined ||
    metadata?.jwks !== undefined ||
    metadata?.jwks_uri !== undefined ||
    (metadata?.urls as Record<string, unknown> | undefined)?.redirect_uris !== undefined
  );
}

/** Checks one merge of a PATCH: the record as read, and what the PATCH would make of it. */
export type DeliveryGuard = (current: ClientRecord, next: ClientRecord) => Promise<void>;

/**
 * The rule for a PATCH of a client, or undefined when it cannot apply: the body names no guarded
 * field, or the caller holds every management scope. The guard is run on every attempt's record
 * (a lost race re-merges the PATCH) and reads the client's links, once per `links_version`; the
 * write must then require that version (clients-repository `linksUnchanged`), so a link made
 * between the check and the write sends the PATCH round again, to be refused.
 */
export async function tokenDeliveryGuard(
  deps: Pick<ClientDeps, 'managementApi' | 'readPartition'>,
  ctx: ManagementContext,
  clientId: string,
  body: UpdateClientInput,
): Promise<DeliveryGuard | undefined> {
  if (!touchesTokenDelivery(body) || holdsEveryManagementScope(ctx.scopes)) return undefined;
  const api = await deps.managementApi();
  if (!api) return undefined;
  let known: { linksVersion: number; linked: boolean } | undefined;
  return async (current, next) => {
    if (!changesTokenDelivery(current, next)) return;
    if (known?.linksVersion !== current.links_version) {
      const partition = await deps.readPartition(clientId);
      known = { linksVersion: partition?.client.links_version ?? -1, linked: partition?.links.has(api.id) ?? false };
    }
    if (known.linked) assertHoldsEveryManagementScope(ctx.scopes);
  };
}
