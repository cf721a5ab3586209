import { routeFinder } from '../routes/find-route.ts';
import { ROUTES } from '../routes/route-table.ts';
import { authenticate } from './authenticate.ts';
import { routedBy } from './http-handler.ts';

/**
 * The HTTP pipeline (http-handler.ts) routed by the whole route table, each route's rule enforced
 * by `authenticate` (bearer tokens and their scopes): management, health, registration, the hosted
 * pages and the API's documentation. The OAuth endpoints use `oauthHandler` (oauth-handler.ts),
 * which carries only their rows.
 */
export const httpHandler = routedBy({ findRoute: routeFinder(ROUTES), authenticate });
