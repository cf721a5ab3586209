import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ROUTES } from '../../shared/routes.ts';
import { calls, createWorld, expectClientError, fuzzParams, M, printStats, type World } from './fuzz-support.ts';

/**
 * DESIGN.md §3.12 over the Resources, Scopes and Resource Clients endpoints: whatever the body, query string, path
 * parameters and headers, the answer is never a 5xx, and every 4xx is a JSON `{code, message}`
 * whose 400 message names the field (API.md §2). The Clients half and health are in fuzz-management-clients.
 */
const RUNS = 60;
const routes = ROUTES.filter((r) => r.path.startsWith(`${M}/resources`));

let world: World;
beforeAll(async () => {
  world = await createWorld('fuzz-resources');
});
afterAll(printStats);

describe('fuzz: Resources, Scopes and Resource Clients endpoints never answer 5xx to client input', () => {
  routes.forEach((route, i) => {
    it(`${route.method} ${route.path}`, { timeout: 90_000 }, async () => {
      const seeds = await world.seed();
      await fc.assert(
        fc.asyncProperty(calls(world, route, seeds), async (call) => {
          expectClientError(call, await world.invoke(call));
        }),
        fuzzParams(RUNS, 100 + i),
      );
    });
  });
});
