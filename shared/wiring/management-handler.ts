import type * as v from 'valibot';
import type { HandlerSpec, Request } from '../http/http-handler.ts';
import type { HttpResponse } from '../http/response.ts';
import { heldScopes } from '../management/held-scopes.ts';
import { type ManagementAccess, managementAccess } from '../management/kit/access.ts';
import { type ManagementContext, managementContext } from '../management/management-context.ts';
import { httpHandler } from './http-handler.ts';
import { oauthDeps } from './token-path/token-path-records.ts';

type Out<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

export type ManagementRequest<B, Q, P> = Request<B, Q, P> & { ctx: ManagementContext; access: ManagementAccess };

/**
 * The management API's pipeline: the HTTP pipeline (bearer token + route scope from the route
 * table, validation) plus the tenant rules of docs/contract.md §4 and the caller's access (kit/access.ts),
 * resolved once per request.
 */
export function managementHandler<
  B extends v.GenericSchema | undefined = undefined,
  Q extends v.GenericSchema | undefined = undefined,
  P extends v.GenericSchema | undefined = undefined,
>(spec: HandlerSpec<B, Q, P>, run: (req: ManagementRequest<Out<B>, Out<Q>, Out<P>>) => Promise<HttpResponse>) {
  return httpHandler(spec, async (req) => {
    const oauth = oauthDeps(req.runtime);
    const tenancy = await managementContext(req.caller, req.headers, req.runtime.config.multiTenant, oauth.findClient, oauth.findUser);
    const scopes = await heldScopes(req.caller!, req.route.auth.type === 'bearer' ? req.route.auth.scope : undefined, oauth);
    // Every later scope test (read:client_keys, no escalation, ...) sees what the caller holds now.
    const caller = { ...req.caller!, scopes };
    const ctx = { ...tenancy, scopes };
    return run({ ...req, caller, ctx, access: managementAccess(ctx, caller) });
  });
}
