import { it } from 'vitest';
import { createWorld, M } from './fuzz-support.ts';
import { ROUTES } from '../../shared/routes.ts';
import { logger } from '../../shared/logger.ts';

it('probe', async () => {
  const world = await createWorld('probe');
  (logger as any).error = (...a: unknown[]) => console.log('LOGGED', a[0], (a[1] as any)?.error?.stack ?? a[1]);
  const bodies = JSON.parse(process.env.PROBE ?? '[]') as { method: string; path: string; body?: unknown; params?: Record<string, string>; query?: [string, string][]; multi?: boolean }[];
  for (const b of bodies) {
    const route = ROUTES.find((r) => r.method === b.method && r.path === `${M}${b.path}`)!;
    const res = await world.invoke({ route, multiTenant: b.multi ?? false, pathParameters: b.params ?? null, headers: { Authorization: `Bearer ${world.tokens.admin}`, 'Content-Type': 'application/json' }, query: b.query ?? [], body: b.body === undefined ? undefined : typeof b.body === 'string' ? b.body : JSON.stringify(b.body) });
    console.log('RESULT', b.method, b.path, res.statusCode, res.body.slice(0, 300));
  }
});
