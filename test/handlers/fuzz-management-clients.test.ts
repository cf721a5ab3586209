import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ROUTES } from '../../shared/routes.ts';
import { calls, createWorld, expectClientError, fuzzParams, M, printStats, type World } from './fuzz-support.ts';

/**
 * DESIGN.md §3.12 over the Clients endpoints and health: whatever the body, query string, path
 * parameters and headers, the answer is never a 5xx, and every 4xx is a JSON `{code, message}`
 * whose 400 message names the field (API.md §2). The Resources half is fuzz-management-resources.
 */
const RUNS = 60;
const routes = ROUTES.filter((r) => r.path.startsWith(`${M}/clients`) || r.path.endsWith('/health'));

let world: World;
beforeAll(async () => {
  world = await createWorld('fuzz-clients');
});
afterAll(printStats);

describe('fuzz: Clients endpoints and health never answer 5xx to client input', () => {
  routes.forEach((route, i) => {
    it(`${route.method} ${route.path}`, { timeout: 90_000 }, async () => {
      const seeds = await world.seed();
      await fc.assert(
        fc.asyncProperty(calls(world, route, seeds), async (call) => {
          expectClientError(call, await world.invoke(call));
        }),
        fuzzParams(RUNS, i),
      );
    });
  });
});
