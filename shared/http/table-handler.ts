import type * as v from 'valibot';
import { routeFinder } from '../routes/find-route.ts';
import { ROUTES } from '../routes/route-table.ts';
import { authenticate } from './authenticate.ts';
import { type HandlerSpec, httpPipeline, type Request, type Routing } from './http-handler.ts';
import type { HttpResponse } from './response.ts';

type Out<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

/** Any route of the table, its rule enforced by `authenticate` (bearer tokens and their scopes). */
const TABLE_ROUTING: Routing = { findRoute: routeFinder(ROUTES), authenticate };

/**
 * The HTTP pipeline (http-handler.ts) routed by the whole route table: management, health,
 * registration, the hosted pages and the API's documentation. The OAuth endpoints use
 * `oauthHandler` (oauth-handler.ts), which carries only their rows.
 */
export function httpHandler<
  B extends v.GenericSchema | undefined = undefined,
  Q extends v.GenericSchema | undefined = undefined,
  P extends v.GenericSchema | undefined = undefined,
>(spec: HandlerSpec<B, Q, P>, run: (req: Request<Out<B>, Out<Q>, Out<P>>) => Promise<HttpResponse>) {
  return httpPipeline(spec, run, TABLE_ROUTING);
}
