import type { Throttle } from '#shared/routes/route.ts';
import { ROUTES } from '#shared/routes/route-table.ts';

export interface LiftedThrottle {
  route: string;
  throttle: Throttle;
}

/**
 * The local server applies API Gateway-style throttles: the stage's (which the bench sets far above
 * anything one core can serve) and the per-route ones of the route rows (shared/routes/) (`/token`, `/tokeninfo`,
 * `/introspect`: 2000 rps, burst 4000). A benchmark must measure the service, not the throttle, so
 * the bench's server runs with `routeThrottles: 'stage-only'`; the report lists what that lifted.
 */
export function routeThrottlesOf(): LiftedThrottle[] {
  return ROUTES.filter((r) => r.throttle).map((r) => ({ route: `${r.method} ${r.path}`, throttle: r.throttle! }));
}

/** Far above what one core serves: the stage throttle never binds during the bench. */
export const UNTHROTTLED: Throttle = { rateLimit: 1_000_000, burstLimit: 1_000_000 };
