import type { Route } from './route.ts';

/**
 * Function groups and their Lambda timeouts in seconds (the CDK app sets them, the local server
 * runs each handler with its group's deadline). Every dependency call is bounded far below these
 * by its budget (shared/aws/dependency-budget.ts); a function that still runs out answers 503 just
 * before its timeout (shared/http/http-handler.ts). All stay inside API Gateway's 29 s.
 */
export const FUNCTION_TIMEOUTS = {
  /** Answers within about a second, `degraded` when DynamoDB does not (shared/health/check-health.ts). */
  health: 3,
  /** OAuth endpoints: a read or two and a signature, with a caller waiting on each. */
  oauth: 6,
  /** Management API: a few reads, one transaction, KMS for secrets and list cursors. */
  management: 12,
  /** 404/405 answers of the API's fallback function: no I/O at all. */
  gateway: 3,
} as const;
export type FunctionGroup = keyof typeof FUNCTION_TIMEOUTS;

/** The group of a route, by its path: the management API, health, and OAuth 2.0 / OIDC at the root (docs/contract.md §1). */
const GROUP_BY_PREFIX: readonly (readonly [string, FunctionGroup])[] = [
  ['/identity/v1/', 'management'],
  ['/company/v1/health', 'health'],
  ['/api/company/v1/health', 'health'],
  ['/', 'oauth'],
];

export function routeGroup(route: Pick<Route, 'path'>): FunctionGroup {
  return GROUP_BY_PREFIX.find(([prefix]) => route.path.startsWith(prefix))![1];
}
