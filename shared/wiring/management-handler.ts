import type * as v from 'valibot';
import type { HandlerSpec, Request } from '../http/http-handler.ts';
import type { HttpResponse } from '../http/response.ts';
import { logger } from '../logger.ts';
import { heldScopes } from '../management/held-scopes.ts';
import { type ManagementAccess, managementAccess } from '../management/kit/access.ts';
import { isWriteMethod, managementEvent, sentMembers } from '../management/kit/management-event.ts';
import { type ManagementContext, managementContext } from '../management/management-context.ts';
import { eventOrigin } from '../records/event-record.ts';
import { withPendingEvent } from '../store/events/pending-event.ts';
import { eventLogOf } from './events.ts';
import { httpHandler } from './http-handler.ts';
import { oauthDeps } from './token-path/token-path-records.ts';

type Out<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

export type ManagementRequest<B, Q, P> = Request<B, Q, P> & { ctx: ManagementContext; access: ManagementAccess };

/**
 * The management API's pipeline: the HTTP pipeline (bearer token + route scope from the route
 * table, validation) plus the tenant rules of docs/contract.md §4 and the caller's access (kit/access.ts),
 * resolved once per request.
 *
 * A write (POST, PUT, PATCH, DELETE) records its event (docs/events.md "Management writes"): the
 * event is pending while the use case runs and rides on the first transaction it commits, so the
 * write and its event land together or not at all; a write that fails records nothing.
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
    const mreq = { ...req, caller, ctx, access: managementAccess(ctx, caller) };
    if (!isWriteMethod(req.route.method)) return run(mreq);

    const { runtime, route } = req;
    const events = eventLogOf(runtime);
    const event = managementEvent(
      {
        method: route.method,
        template: route.path,
        params: (req.path ?? {}) as Record<string, string | undefined>,
        body: req.body,
        sent: sentMembers(req.rawBody),
      },
      { sub: caller.claims.sub, client_id: caller.claims.client_id },
      ctx.tenantId,
      runtime.now(),
      eventOrigin(req.requestId, req.sourceIp, req.headers['user-agent']),
    );
    const { result, recorded } = await withPendingEvent(event, events.fold, () => run(mreq));
    if (result.statusCode < 300 && !recorded) {
      // A 2xx write whose commit did not carry the event: a write path outside commitPlan and
      // sendWithEvents. Still recorded (never lost), and named so that it gets fixed.
      logger.warn('A management write committed without its event', { route: `${route.method} ${route.path}`, event_type: event.type });
      await events.record(event);
    }
    return result;
  });
}
