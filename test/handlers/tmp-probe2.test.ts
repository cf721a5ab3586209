import { it } from 'vitest';
import fc from 'fast-check';
import { createWorld, calls } from './fuzz-support.ts';
import { ROUTES } from '../../shared/routes.ts';

it('sample', async () => {
  const world = await createWorld('probe');
  const seeds = await world.seed();
  const route = ROUTES.find((r) => r.method === 'PATCH' && r.path.endsWith('{client_id}'))!;
  for (const c of fc.sample(calls(world, route, seeds), { numRuns: 60, seed: 5 })) {
    const res = await world.invoke(c);
    if (res.body.includes('malformed') || res.statusCode === 200) console.log('SAMPLE', res.statusCode, JSON.stringify(c.headers['Content-Type'] ?? c.headers['content-type']), c.isBase64Encoded, (c.body ?? '').slice(0, 200));
  }
});
