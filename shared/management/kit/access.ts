import { notFound } from '../../errors.ts';
import type { Caller } from '../../http/authenticate.ts';
import type { ManagementContext } from '../management-context.ts';

/**
 * Who asks, resolved once per request by the management pipeline (management-handler.ts) and
 * handed to every use case as one object instead of positional booleans.
 */
export interface ManagementAccess {
  /** The tenant rules of docs/contract.md §4 (actor, tenant, global or not). */
  readonly ctx: ManagementContext;
  /** `read:client_keys`: stored secrets (client secrets, HS256 signing secrets) may be shown (docs/design.md §4). */
  readonly readsKeys: boolean;
  /** `update:client_keys`: a new client secret may be minted and shown (docs/contract.md §6). */
  readonly rotatesKeys: boolean;
}

export function managementAccess(ctx: ManagementContext, caller: Caller | undefined): ManagementAccess {
  const scopes = caller?.scopes;
  return { ctx, readsKeys: scopes?.has('read:client_keys') ?? false, rotatesKeys: scopes?.has('update:client_keys') ?? false };
}

/** What `loadVisible` reads from: any repository with `get(id)` of tenant-owned records. */
export interface VisibleSource<R extends { tenant_id: string }> {
  get(id: string): Promise<R | undefined>;
}

/** Whether the caller may see a record of this tenant (docs/contract.md §4: a global caller sees every tenant). */
export const isVisible = (ctx: ManagementContext, record: { tenant_id: string } | undefined): boolean =>
  record !== undefined && (ctx.isGlobal || record.tenant_id === ctx.tenantId);

/**
 * The record at `/{group}/{id}`, or 404 when it does not exist or belongs to a tenant the caller
 * cannot see: another tenant's record is invisible, a 404 and not a 403 (docs/contract.md §4). `noun` names
 * the record in the message (`Client not found.`), never its id (docs/contract.md §8: no request value echoed).
 */
export async function loadVisible<R extends { tenant_id: string }>(
  repo: VisibleSource<R>,
  ctx: ManagementContext,
  id: string,
  noun: string,
): Promise<R> {
  const record = await repo.get(id);
  if (!record || !isVisible(ctx, record)) throw notFound(`${noun} not found.`);
  return record;
}

/**
 * Every named record must exist and be visible (same rule), checked before anything is written so
 * a bad id changes nothing (docs/contract.md §6 all-or-nothing). Returns them in the order of their first
 * mention, each once. The 404 names the body field the ids came from (`body.clients: a client
 * was not found.`), never an id (docs/contract.md §8).
 */
export async function loadAllVisible<R extends { tenant_id: string }>(
  repo: VisibleSource<R>,
  ctx: ManagementContext,
  ids: readonly string[],
  what: { field: string; noun: string },
): Promise<R[]> {
  return Promise.all(
    [...new Set(ids)].map(async (id) => {
      const record = await repo.get(id);
      if (!record || !isVisible(ctx, record)) throw notFound(`${what.field}: a ${what.noun} was not found.`);
      return record;
    }),
  );
}
