import { ROUTES, type Throttle } from '../../shared/routes.ts';

export interface LiftedThrottle {
  route: string;
  throttle: Throttle;
}

/**
 * The local server applies API Gateway-style throttles: the stage's (which the bench sets far above
 * anything one core can serve) and the per-route ones of shared/routes.ts (`/token`, `/tokeninfo`,
 * `/introspect`: 2000 rps, burst 4000). A benchmark must measure the service, not the throttle, so
 * the bench's server process removes the per-route throttles before its first request (the local
 * server reads `route.throttle` when it first sees a route), and the report lists what it lifted.
 *
 * This mutates the route objects of this process only; nothing on disk changes. It is a stopgap until
 * the local stack takes a throttle override (requested in docs/benchmarks.md, "Needs").
 */
export function liftRouteThrottles(): LiftedThrottle[] {
  const lifted: LiftedThrottle[] = [];
  for (const route of ROUTES) {
    if (!route.throttle) continue;
    lifted.push({ route: `${route.method} ${route.path}`, throttle: route.throttle });
    (route as { throttle?: Throttle }).throttle = undefined;
  }
  return lifted;
}

/** Far above what one core serves: the stage throttle never binds during the bench. */
export const UNTHROTTLED: Throttle = { rateLimit: 1_000_000, burstLimit: 1_000_000 };
