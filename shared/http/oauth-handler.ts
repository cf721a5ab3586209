import { routeFinder } from '../routes/find-route.ts';
import { OAUTH_ROUTES } from '../routes/oauth-routes.ts';
import type { Route } from '../routes/route.ts';
import { type Routing, routedBy } from './http-handler.ts';

/**
 * Routing over rows whose rules are `none` or `client`: nothing for the pipeline to check, the use
 * case authenticates the client itself (RFC 6749 §2.3; at `/userinfo` its bearer token, OIDC Core
 * §5.3). A `bearer` row needs `authenticate` (table-handler.ts): refused when the function starts,
 * never skipped.
 */
export function clientAuthRouting(routes: readonly Route[]): Routing {
  const bearer = routes.filter((r) => r.auth.type === 'bearer');
  if (bearer.length)
    throw new Error(`${bearer.map((r) => `${r.method} ${r.path}`).join(', ')}: bearer authentication needs httpHandler (table-handler.ts)`);
  return { findRoute: routeFinder(routes), authenticate: async () => undefined };
}

/**
 * The HTTP pipeline (http-handler.ts) for the OAuth 2.0 / OIDC endpoints, routed by their rows
 * alone (shared/routes/oauth-routes.ts): their functions bundle neither the management API's rows
 * nor the bearer-token verification of `authenticate`, which no OAuth route's rule asks for
 * (docs/benchmarks.md "Token function bundle").
 */
export const oauthHandler = routedBy(clientAuthRouting(OAUTH_ROUTES));
