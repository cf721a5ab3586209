import type { AuthRule } from './route.ts';

/** The rows' shorthands for a route's auth rule (route.ts `AuthRule`). */
export const none = { type: 'none' } as const;
export const client = { type: 'client' } as const;
export const bearer = (scope?: string): AuthRule => (scope ? { type: 'bearer', scope } : { type: 'bearer' });
