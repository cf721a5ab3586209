import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ROUTES } from '../../shared/routes.ts';
import { calls, createWorld, expectClientError, fuzzParams, M, printStats, type World } from './fuzz-support.ts';

/**
 * DESIGN.md §3.12 over the Resources, Resource Scopes and Resource Clients endpoints: whatever the body, query string, path parameters and headers
 * (generated from the handlers' own schemas, see fuzz-support.ts), the answer is never a 5xx, and
 * every 4xx is a JSON `{code, message}` whose 400 message names where the problem is (API.md §2).
 * The Clients half and health are in fuzz-management-clients.test.ts. `FUZZ_STATS=1` prints what the runs reached.
 */
const RUNS = 60; // per route, from a fixed seed
const VARYING = 20; // per route, from a fresh seed each time
const routes = ROUTES.filter((r) => r.path.startsWith(`${M}/resources`));

let world: World;
beforeAll(async () => {
  world = await createWorld('fuzz-resources');
});
afterAll(printStats);

describe('fuzz: Resources, Scopes and Resource Clients endpoints never answer 5xx to client input', () => {
  routes.forEach((route, i) => {
    it(`${route.method} ${route.path}`, { timeout: 90_000 }, async () => {
      // Fresh records per route: a DELETE fuzzed earlier must not leave this route only 404s.
      const seeds = await world.seed();
      const property = fc.asyncProperty(calls(world, route, seeds), async (call) => {
        expectClientError(call, await world.invoke(call));
      });
      for (const params of fuzzParams(RUNS, VARYING, 100 + i)) await fc.assert(property, params);
    });
  });
});
