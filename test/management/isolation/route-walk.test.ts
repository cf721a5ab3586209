import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from '#shared/routes/route.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import type { Reply } from '../../support/management/clients-fixture.ts';
import { type Caller, type Ids, type IsolationFixture, isolationFixture, KINDS, type Kind } from './isolation-fixture.ts';
import { BODIES, missingFillers, NOT_BEARER, PATH_KINDS, pathParams, routeKey, WITHOUT_TOTAL_COUNT } from './walk-table.ts';

/**
 * The tenant rules of docs/contract.md §4 on every route of the management API (docs/tenants.md
 * "Isolation walk"): a caller bound to tenant A addresses B's records on every route and method,
 * and each answer must be the answer to an unknown id (status, body with the id replaced, the
 * headers that explain it), so no answer tells that B's record exists; afterwards the table holds
 * exactly what it held before. Lists show A's records only, counted without B's.
 */
const MANAGEMENT = ROUTES.filter((r) => r.path.startsWith('/identity/v1/'));
const WALKED = MANAGEMENT.filter((r) => !NOT_BEARER.has(routeKey(r)));

type Side = 'a' | 'b' | 'unknown';
/** The side each kind of id in a body comes from. */
type BodySides = (kind: Kind) => Side;

let w: IsolationFixture;
let before: Record<string, unknown>[];

beforeAll(async () => {
  w = await isolationFixture();
  before = await w.snapshot();
}, 120_000);
afterAll(async () => w?.stop());

/** Fresh random UUIDv7 ids for every kind: the control an id of B is compared with. */
const unknownIds = (): Ids => Object.fromEntries(KINDS.map((k) => [k, uuidv7()])) as Ids;

/** `user:b` for a body whose user id is B's and the rest A's. */
const sidesLabel = (sides: BodySides) =>
  KINDS.filter((k) => sides(k) !== 'a')
    .map((k) => `${k}:${sides(k)}`)
    .join(',') || 'a';

interface Call {
  reply: Reply;
  /** The path below /identity/v1 as sent. */
  path: string;
  /** The ids of B or unknown ids the request named: the answer's text is compared with them replaced. */
  named: string[];
  label: string;
}

/** One request of `caller` to `route`: path parameter i from `pathSides[i]`, the body's ids from `bodySides`. */
async function send(
  route: Route,
  caller: Caller,
  pathSides: Side[],
  bodySides: BodySides,
  n: string,
  headers: Record<string, string> = {},
) {
  const sides: Record<Side, Ids> = { a: w.aIds, b: w.bIds, unknown: unknownIds() };
  const named = new Set<string>();
  const idOf = (side: Side, kind: Kind) => {
    const id = sides[side][kind];
    if (!id) throw new Error(`${routeKey(route)}: no ${kind} id on side ${side}; add one to isolation-fixture.ts`);
    if (side !== 'a') named.add(id);
    return id;
  };
  const params = pathParams(route.path);
  let i = 0;
  const path = route.path.replace(/\{([a-z_]+)\}/g, () => idOf(pathSides[i]!, PATH_KINDS[params[i++]!]!)).slice('/identity/v1'.length);
  const spec = BODIES[routeKey(route)]!;
  const body = spec === 'none' ? undefined : spec((kind) => idOf(bodySides(kind), kind), n);
  for (const v of Object.values(headers)) named.add(v);
  const reply = await w.call(route.method, path, { token: caller.token, headers, ...(body !== undefined ? { body } : {}) });
  return { reply, path, named: [...named], label: `${routeKey(route)} path=[${pathSides}] body=${sidesLabel(bodySides)}` } satisfies Call;
}

/** The parts of an answer that may not differ between an id of B and an unknown id. */
function answerOf(call: Call) {
  let text = JSON.stringify(call.reply.body ?? null);
  for (const id of call.named) text = text.replaceAll(id, '{id}');
  const h = call.reply.headers;
  return {
    status: call.reply.status,
    body: JSON.parse(text),
    'content-type': h.get('content-type'),
    'www-authenticate': h.get('www-authenticate'),
    'cache-control': h.get('cache-control'),
  };
}

/** Runs `tasks` at most `width` at a time: a walk of some hundred requests without a burst. */
async function pool<T>(tasks: (() => Promise<T>)[], width = 6): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const i = next++;
        out[i] = await tasks[i]!();
      }
    }),
  );
  return out;
}

/** The pairs (B, unknown) of one route: B's ids in the path, then the path's last id only, then only the body's ids. */
function variants(route: Route): { path: (s: Side) => Side[]; body: (s: Side) => BodySides }[] {
  const k = pathParams(route.path).length;
  const spec = BODIES[routeKey(route)]!;
  const named = new Set<Kind>();
  if (spec !== 'none')
    spec((kind) => {
      named.add(kind);
      return uuidv7();
    }, 'x');
  const out: { path: (s: Side) => Side[]; body: (s: Side) => BodySides }[] = [];
  if (k > 0) out.push({ path: (s) => Array(k).fill(s), body: (s) => () => s });
  if (k > 1) out.push({ path: (s) => [...Array(k - 1).fill('a'), s], body: () => () => 'a' });
  // Each id of the body on its own, the rest A's: one id of B among A's must not show either.
  for (const kind of named) out.push({ path: () => Array(k).fill('a'), body: (s) => (of) => (of === kind ? s : 'a') });
  return out;
}

/** Every (B, unknown) pair of answers of `caller` whose answers differ, or are not a 4xx; empty when isolation holds. */
async function walk(caller: Caller): Promise<string[]> {
  const tasks = WALKED.flatMap((route) =>
    variants(route).map((v) => async () => {
      const n = uuidv7();
      const ofB = await send(route, caller, v.path('b'), v.body('b'), n);
      const ofUnknown = await send(route, caller, v.path('unknown'), v.body('unknown'), n);
      const [b, u] = [answerOf(ofB), answerOf(ofUnknown)];
      const problems: string[] = [];
      if (u.status < 400 || u.status >= 500)
        problems.push(`${ofUnknown.label}: an unknown id answered ${u.status} ${JSON.stringify(u.body)}`);
      if (JSON.stringify(b) !== JSON.stringify(u))
        problems.push(`${ofB.label}: B's id ${JSON.stringify(b)} but unknown id ${JSON.stringify(u)}`);
      return problems;
    }),
  );
  expect(tasks.length).toBeGreaterThan(WALKED.length);
  return (await pool(tasks)).flat();
}

describe('the isolation walk over the route table (docs/contract.md §4)', () => {
  it('knows how to call every management route: each path parameter has a kind, each route a body', () => {
    expect(MANAGEMENT.length).toBeGreaterThan(80);
    expect(MANAGEMENT.flatMap(missingFillers)).toEqual([]);
    // An entry for a route that is gone is a walk that no longer runs.
    const known = new Set(MANAGEMENT.map(routeKey));
    expect(Object.keys(BODIES).filter((k) => !known.has(k))).toEqual([]);
    // A route added without fillers is named with what to add.
    const added = { ...MANAGEMENT[0]!, method: 'POST' as const, path: '/identity/v1/widgets/{widget_id}/parts' };
    expect(missingFillers(added)).toEqual([
      'POST /identity/v1/widgets/{widget_id}/parts: path parameter {widget_id} has no kind; add it to PATH_KINDS in test/management/isolation/walk-table.ts',
      "POST /identity/v1/widgets/{widget_id}/parts: no body; add it to BODIES in test/management/isolation/walk-table.ts ('none' or a valid body)",
    ]);
  });

  for (const index of [0, 1, 2]) {
    it(`caller ${index + 1} bound to A: every id of B answers exactly as an unknown id, on every route and method`, async () => {
      const caller = w.callers[index]!;
      expect({ caller: caller.name, problems: await walk(caller) }).toEqual({ caller: caller.name, problems: [] });
    }, 90_000);

    it(`caller ${index + 1} bound to A: a tenant_id header naming B is 403, the same answer as an unknown tenant, on every route`, async () => {
      const caller = w.callers[index]!;
      const tasks = WALKED.map((route) => async () => {
        const k = pathParams(route.path).length;
        const n = uuidv7();
        const ofB = await send(route, caller, Array(k).fill('a'), () => 'a', n, { tenant_id: w.tenantB });
        const ofUnknown = await send(route, caller, Array(k).fill('a'), () => 'a', n, { tenant_id: uuidv7() });
        const [b, u] = [answerOf(ofB), answerOf(ofUnknown)];
        return [
          ...(b.status === 403 ? [] : [`${ofB.label}: a tenant_id header of B answered ${b.status} ${JSON.stringify(b.body)}`]),
          ...(JSON.stringify(b) === JSON.stringify(u)
            ? []
            : [`${ofB.label}: header of B ${JSON.stringify(b)}, unknown ${JSON.stringify(u)}`]),
        ];
      });
      expect((await pool(tasks)).flat()).toEqual([]);
    }, 90_000);

    it(`caller ${index + 1} bound to A: lists hold A's records only and total_count counts A's`, async () => {
      const caller = w.callers[index]!;
      const own: Record<string, string[]> = {
        '/clients': [w.a.client.id, w.aCallerClient.id],
        '/resources': [w.a.resource.id],
        '/users': [w.a.user.id, w.aAdmin.id, w.aTenantAdmin.id],
        '/roles': [w.a.role.id],
        '/groups': [w.a.group.id, w.a.child.id],
        '/tenants': [w.tenantA],
      };
      const ofB = Object.values(w.bIds).filter((id): id is string => id !== undefined);
      const b = w.b;
      const filters = [
        `/users?q=${encodeURIComponent(`(email="${b.user.email}")`)}`,
        `/users?q=${encodeURIComponent(`(username="${b.user.username}")`)}`,
        `/roles?q=${encodeURIComponent(`(role_name="${b.role.role_name}")`)}`,
        `/groups?q=${encodeURIComponent(`(group_name="${b.group.group_name}")`)}`,
        `/clients?q=${encodeURIComponent(`(client_name="${b.client.client_name}")`)}`,
      ];
      const gets = WALKED.filter((r) => r.method === 'GET');
      const tasks = [
        ...gets.map((route) => async () => {
          const k = pathParams(route.path).length;
          const call = await send(route, caller, Array(k).fill('a'), () => 'a', '');
          return { path: call.path, reply: call.reply, label: call.label, counted: !WITHOUT_TOTAL_COUNT.has(routeKey(route)) };
        }),
        ...filters.map((path) => async () => ({
          path,
          reply: await w.call('GET', path, { token: caller.token }),
          label: `GET ${path}`,
          counted: true,
        })),
      ];
      const problems: string[] = [];
      for (const { path, reply, label, counted } of await pool(tasks)) {
        if (reply.status !== 200) {
          problems.push(`${label}: ${reply.status} ${JSON.stringify(reply.body)}`);
          continue;
        }
        const text = JSON.stringify(reply.body);
        for (const id of ofB) if (text.includes(id)) problems.push(`${label}: names ${id} of B`);
        // The paged lists' envelope (docs/contract.md §3); a user's authenticators are a short `{items}`.
        if (!Array.isArray(reply.body.items) || !('has_more' in reply.body)) continue;
        const count = counted ? 'total_count=true&' : '';
        const listed = await w.call('GET', `${path}${path.includes('?') ? '&' : '?'}${count}limit=100`, { token: caller.token });
        if (listed.status !== 200) {
          problems.push(`${label} with total_count: ${listed.status} ${JSON.stringify(listed.body)}`);
          continue;
        }
        const ids = listed.body.items.map((item: any) => item.id ?? item.user_id ?? item.group_id ?? item.role_id ?? item.resource_id);
        if ((counted && listed.body.total_count !== ids.length) || listed.body.has_more)
          problems.push(`${label}: total_count ${listed.body.total_count}, ${ids.length} items`);
        for (const item of listed.body.items) {
          if ('tenant_id' in item && item.tenant_id !== w.tenantA) problems.push(`${label}: an item of tenant ${item.tenant_id}`);
        }
        const expected = path.includes('?') ? [] : own[path];
        if (expected && JSON.stringify([...ids].sort()) !== JSON.stringify([...expected].sort()))
          problems.push(`${label}: ${ids} not ${expected}`);
      }
      expect(problems).toEqual([]);
    }, 60_000);
  }

  it('after the walk every stored item is as it was: nothing of B (or anyone) read into a change', async () => {
    const after = await w.snapshot();
    const keyOf = (i: Record<string, unknown>) => `${i.PK}|${i.SK}`;
    const was = new Map(before.map((i) => [keyOf(i), JSON.stringify(i)]));
    const now = new Map(after.map((i) => [keyOf(i), JSON.stringify(i)]));
    const changed = [...new Set([...was.keys(), ...now.keys()])].filter((k) => was.get(k) !== now.get(k));
    expect(changed.map((k) => ({ key: k, before: was.get(k), after: now.get(k) }))).toEqual([]);
    expect(after.length).toBeGreaterThan(50);
  });
});
