import { authenticate } from '../http/authenticate.ts';
import { routedBy } from '../http/http-handler.ts';
import { routeFinder } from '../routes/find-route.ts';
import { ROUTES } from '../routes/route-table.ts';
import { userTokenReads } from './token-path/user-token-records.ts';

/**
 * The HTTP pipeline (shared/http/http-handler.ts) routed by the whole route table, each route's
 * rule enforced by `authenticate` (bearer tokens and their scopes; a user's token is checked
 * against the user's current state through the token path's caches): management, health,
 * registration, the hosted pages and the API's documentation. The OAuth endpoints use
 * `oauthHandler` (shared/http/oauth-handler.ts), which carries only their rows.
 */
export const httpHandler = routedBy({
  findRoute: routeFinder(ROUTES),
  authenticate: (route, headers, runtime, pathParameters) => authenticate(route, headers, runtime, pathParameters, userTokenReads),
});
