import { READ } from './access-profiles.ts';
import { bearer } from './auth-rules.ts';
import type { Route } from './route.ts';

/** Health (spec 4.4): any valid token of this service. */
export const HEALTH_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/company/v1/health', handler: 'functions/health/get-health', auth: bearer(), access: READ },
  { method: 'GET', path: '/api/company/v1/health', handler: 'functions/health/get-health', auth: bearer(), access: READ },
];
