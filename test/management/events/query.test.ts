import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TENANT_ADMIN_SCOPES } from '#shared/rbac/tenant-admin-scopes.ts';
import { type EventType, eventOrigin, newEvent } from '#shared/records/event-record.ts';
import { EVENT_READ_BUDGET, eventsRepository } from '#shared/store/events/events-repository.ts';
import { eventLogOf } from '#shared/wiring/events.ts';
import { type UsersFixture, usersFixture } from '../../support/management/users-fixture.ts';
import { startTestService } from '../../support/service/local-service.ts';
import { createTenant, managementCaller } from '../../support/service/management-api.ts';
import { storedEvents } from '../../support/store/stored-events.ts';

/**
 * The events query API (docs/events.md "Query API", "Retention"): `GET /identity/v1/events` and
 * `GET /identity/v1/users/{user_id}/events` over HTTP against DynamoDB Local. Events are written
 * with the service's own EventLog, each test in a tenant of its own that no management write
 * touches, so a list is compared with exactly what the table holds.
 */
let fx: UsersFixture;
const DAY = 86_400_000;

beforeAll(async () => {
  fx = await usersFixture({ MULTI_TENANT: 'true' });
});
afterAll(async () => fx?.stop());

const runtime = () => fx.svc.stack.runtime;

/** Writes `count` events of `tenant`, one ms apart, the first at `start`, through the EventLog. */
async function record(
  tenant: string,
  count: number,
  fields: { type?: EventType; user_id?: string; client_id?: string; start?: number } = {},
): Promise<void> {
  const start = fields.start ?? Date.now() - DAY;
  const log = eventLogOf(runtime());
  const origin = eventOrigin('req-1', '203.0.113.7', 'test-agent');
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, j) =>
        log.record(
          newEvent(fields.type ?? 'login.succeeded', new Date(start + i + j), origin, {
            tenant_id: tenant,
            ...(fields.user_id ? { user_id: fields.user_id } : {}),
            ...(fields.client_id ? { client_id: fields.client_id } : {}),
          }),
        ),
      ),
    );
  }
}

/** What the list should show of the stored events: newest first, without the store's `ttl`. */
async function expected(tenant: string, keep: (e: Record<string, any>) => boolean = () => true) {
  const stored = await storedEvents(runtime(), tenant);
  return stored
    .filter(keep)
    .reverse()
    .map(({ ttl: _ttl, ...e }) => e);
}

const inTenant = (tenant: string) => ({ headers: { tenant_id: tenant } });
const q = (s: string) => encodeURIComponent(s);

/** Follows next_cursor to the end; returns every page. */
async function walk(path: string, options = {}) {
  const pages: any[] = [];
  let url = path;
  for (;;) {
    const res = await fx.call('GET', url, options);
    expect(res.status).toBe(200);
    pages.push(res.body);
    if (!res.body.has_more) return pages;
    expect(typeof res.body.next_cursor).toBe('string');
    url = `${path}${path.includes('?') ? '&' : '?'}cursor=${res.body.next_cursor}`;
  }
}

describe('GET /events: paging', () => {
  it('walks 25 events with limit=10: 3 pages, every event once, newest first, offsets 0/10/20', async () => {
    const tenant = await createTenant(runtime());
    await record(tenant, 25, { client_id: 'c-1' });
    const pages = await walk('/events?limit=10', inTenant(tenant));
    expect(pages.map((p) => [p.count, p.has_more, p.offset, p.limit])).toEqual([
      [10, true, 0, 10],
      [10, true, 10, 10],
      [5, false, 20, 10],
    ]);
    expect(pages[2].next_cursor).toBeUndefined();
    const all = pages.flatMap((p) => p.items);
    const want = await expected(tenant);
    expect(want).toHaveLength(25);
    expect(all).toEqual(want);
    expect(all[0]).toMatchObject({
      type: 'login.succeeded',
      tenant_id: tenant,
      client_id: 'c-1',
      request_id: 'req-1',
      source_ip: '203.0.113.7',
      user_agent: 'test-agent',
    });
    expect(all[0].ttl).toBeUndefined();
    const times = all.map((e: any) => e.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('answers JSON with the default limit 10, no total_count, and fields=id,type', async () => {
    const tenant = await createTenant(runtime());
    await record(tenant, 12);
    const res = await fx.call('GET', '/events', inTenant(tenant));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['count', 'has_more', 'items', 'limit', 'next_cursor', 'offset']);
    expect(res.body).toMatchObject({ count: 10, limit: 10, has_more: true });
    const picked = await fx.call('GET', '/events?fields=id,type&limit=2&total_count=false&offset=0', inTenant(tenant));
    expect(picked.status).toBe(200);
    const want = await expected(tenant);
    expect(picked.body.items).toEqual(want.slice(0, 2).map((e) => ({ id: e.id, type: e.type })));
  });

  it('an empty tenant is an empty page without a cursor', async () => {
    const tenant = await createTenant(runtime());
    const res = await fx.call('GET', '/events', inTenant(tenant));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 0, has_more: false, limit: 10, offset: 0, items: [] });
  });
});

describe('GET /events: filters and the date range', () => {
  let tenant: string;
  // Noon (UTC) three days ago, inside the retention whenever the test runs.
  const today = new Date();
  const base = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 3, 12);
  const day0 = new Date(base).toISOString().slice(0, 10);
  const day1 = new Date(base + DAY).toISOString().slice(0, 10);
  const userA = randomUUID();
  beforeAll(async () => {
    tenant = await createTenant(runtime());
    await record(tenant, 3, { type: 'login.failed', client_id: 'app-1', start: base });
    await record(tenant, 2, { type: 'login.succeeded', client_id: 'app-2', user_id: userA, start: base + 10 });
    await record(tenant, 2, { type: 'login.succeeded', start: base + DAY });
  });
  const list = async (query: string) => {
    const res = await fx.call('GET', `/events?limit=100&${query}`, inTenant(tenant));
    expect(res.status).toBe(200);
    return res.body.items as Record<string, any>[];
  };

  it('q by type, client_id, user_id, and combined; client_id=null', async () => {
    expect(await list(`q=${q('(type=login.failed)')}`)).toEqual(await expected(tenant, (e) => e.type === 'login.failed'));
    expect(await list(`q=${q('(client_id=app-2)')}`)).toEqual(await expected(tenant, (e) => e.client_id === 'app-2'));
    expect(await list(`q=${q(`(user_id=${userA.toUpperCase()})`)}`)).toEqual(await expected(tenant, (e) => e.user_id === userA));
    expect((await list(`q=${q('(type=login.succeeded) and (client_id=app-2)')}`)).length).toBe(2);
    expect(await list(`q=${q('(type=login.failed) and (client_id=app-2)')}`)).toEqual([]);
    expect(await list(`q=${q('(client_id=null)')}`)).toEqual(await expected(tenant, (e) => e.client_id === undefined));
    expect(await list(`q=${q(`(user_id=${userA}) and (type=login.failed)`)}`)).toEqual([]);
  });

  it('from is inclusive, to exclusive, to the millisecond; a q date is that UTC day', async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    const all = await expected(tenant);
    const at = (ms: number) => all.filter((e) => Date.parse(e.occurred_at) >= ms);
    expect(await list(`from=${iso(base + 1)}`)).toEqual(at(base + 1));
    expect((await list(`from=${iso(base + 1)}&to=${iso(base + 2)}`)).map((e) => e.occurred_at)).toEqual([iso(base + 1)]);
    expect(await list(`from=${iso(base)}&to=${iso(base + 10)}`)).toEqual(await expected(tenant, (e) => e.type === 'login.failed'));
    expect(await list(`to=${iso(base)}`)).toEqual([]);
    expect((await list(`from=${q(`${day1}T13:00:00+01:00`)}`)).length).toBe(2);
    expect((await list(`from=${q(`${day1}T13:00:00.001+01:00`)}`)).length).toBe(1);
    expect((await list(`from=${day0}&to=${day1}`)).length).toBe(5);
    expect((await list(`q=${q(`(occurred_at=${day1})`)}`)).length).toBe(2);
    expect((await list(`q=${q(`(occurred_at=${iso(base + 11)})`)}`)).map((e) => e.occurred_at)).toEqual([iso(base + 11)]);
    // A q day and from/to intersect; disjoint ones match nothing.
    expect((await list(`q=${q(`(occurred_at=${day0})`)}&from=${iso(base + 2)}`)).length).toBe(3);
    expect(await list(`q=${q(`(occurred_at=${day0})`)}&from=${day1}`)).toEqual([]);
    expect(await list(`q=${q('(occurred_at=null)')}`)).toEqual([]);
    expect(await list('from=9999-12-31')).toEqual([]);
    expect((await list('to=9999-12-31')).length).toBe(7);
  });

  it('pages a filtered list with cursors: every match once', async () => {
    const pages = await walk(`/events?limit=1&q=${q('(type=login.succeeded)')}`, inTenant(tenant));
    expect(pages.flatMap((p) => p.items)).toEqual(await expected(tenant, (e) => e.type === 'login.succeeded'));
    expect(pages.map((p) => p.offset)).toEqual([0, 1, 2, 3]);
  });
});

describe('GET /events: the read bound', () => {
  it(`reads at most ${EVENT_READ_BUDGET} items per request: a rare match behind more comes on a later page`, async () => {
    const tenant = await createTenant(runtime());
    await record(tenant, 1, { type: 'lockout.started', start: Date.now() - 2 * DAY });
    await record(tenant, 1_050, { start: Date.now() - DAY });
    const path = `/events?q=${q('(type=lockout.started)')}`;
    const first = await fx.call('GET', path, inTenant(tenant));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ count: 0, has_more: true, items: [] });
    const second = await fx.call('GET', `${path}&cursor=${first.body.next_cursor}`, inTenant(tenant));
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ count: 1, has_more: false, offset: 0 });
    expect(second.body.items).toEqual(await expected(tenant, (e) => e.type === 'lockout.started'));

    // The store's own count of what it read (ScannedCount), for the same query.
    const repo = eventsRepository(runtime().db, runtime().config.tableName, runtime().now);
    const page = await repo.list({ tenantId: tenant, filters: [{ attribute: 'type', value: 'lockout.started' }], limit: 10 });
    expect(page.read).toBe(EVENT_READ_BUDGET);
    expect(page.items).toEqual([]);
    const rest = await repo.list({
      tenantId: tenant,
      filters: [{ attribute: 'type', value: 'lockout.started' }],
      limit: 10,
      startKey: page.nextKey!,
    });
    expect(rest.read).toBe(51);
    expect(rest.items.map((e) => e.type)).toEqual(['lockout.started']);
    expect(rest.nextKey).toBeUndefined();
    // Unfiltered, a page reads limit + 1 items.
    expect((await repo.list({ tenantId: tenant, filters: [], limit: 10 })).read).toBe(11);
  }, 60_000);
});

describe('GET /users/{user_id}/events', () => {
  it("lists one user's events newest first, with q; other users' and another tenant's items never show", async () => {
    const tenant = await createTenant(runtime());
    const other = await createTenant(runtime());
    const user = await fx.createUser({}, { tenant_id: tenant });
    await record(tenant, 4, { user_id: user.id, client_id: 'app-u' });
    await record(tenant, 2, { user_id: user.id, type: 'login.failed' });
    await record(tenant, 3, { user_id: randomUUID() });
    // An item under this user's index but of another tenant (ids are global; the check is the store's).
    await record(other, 2, { user_id: user.id });
    const mine = (e: Record<string, any>) => e.user_id === user.id;
    const pages = await walk(`/users/${user.id}/events?limit=4`, inTenant(tenant));
    expect(pages.flatMap((p) => p.items)).toEqual(await expected(tenant, mine));
    expect(pages.flatMap((p) => p.items).every((e: any) => e.tenant_id === tenant)).toBe(true);
    const failed = await fx.call('GET', `/users/${user.id}/events?q=${q('(type=login.failed)')}`, inTenant(tenant));
    expect(failed.body.items).toEqual(await expected(tenant, (e) => mine(e) && e.type === 'login.failed'));
    // The same through /events?q=(user_id=...).
    const viaQ = await fx.call('GET', `/events?limit=100&q=${q(`(user_id=${user.id})`)}`, inTenant(tenant));
    expect(viaQ.body.items).toEqual(await expected(tenant, mine));
    // A user_id term naming someone else on a user's list matches nothing.
    const crossed = await fx.call('GET', `/users/${user.id}/events?q=${q(`(user_id=${randomUUID()})`)}`, inTenant(tenant));
    expect(crossed.body.items).toEqual([]);
  });

  it('an unknown user is 404; a malformed id 400', async () => {
    const res = await fx.call('GET', `/users/${randomUUID()}/events`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'not_found', message: 'User not found.' });
    const bad = await fx.call('GET', '/users/not-a-uuid/events');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^path\.user_id: /);
  });
});

describe('tenant isolation', () => {
  let tenantA: string;
  let tenantB: string;
  let userA: Record<string, any>;
  let tokenB: string;
  beforeAll(async () => {
    tenantA = await createTenant(runtime());
    tenantB = await createTenant(runtime());
    userA = await fx.createUser({}, { tenant_id: tenantA });
    await record(tenantA, 5, { user_id: userA.id, client_id: 'a-app' });
    await record(tenantB, 2, { client_id: 'b-app' });
    const bound = await fx.createClient({ client_name: 'tenant B reader', tenant_id: tenantB, is_global: false });
    tokenB = await fx.clientToken(bound, 'read:events read:users');
  });

  it("a tenant-bound caller sees only its tenant, by any parameter; A's user is 404; naming A is 403", async () => {
    const aIds = new Set((await expected(tenantA)).map((e) => e.id));
    const asB = { token: tokenB };
    const own = await fx.call('GET', '/events?limit=100', asB);
    expect(own.status).toBe(200);
    expect(own.body.items.length).toBeGreaterThanOrEqual(2);
    expect(own.body.items.every((e: any) => e.tenant_id === tenantB && !aIds.has(e.id))).toBe(true);
    for (const query of [`q=${q(`(user_id=${userA.id})`)}`, `q=${q('(client_id=a-app)')}`, 'from=2000-01-01']) {
      const res = await fx.call('GET', `/events?limit=100&${query}`, asB);
      expect(res.status).toBe(200);
      expect(res.body.items.some((e: any) => aIds.has(e.id) || e.tenant_id !== tenantB)).toBe(false);
    }
    expect((await fx.call('GET', `/events?q=${q(`(user_id=${userA.id})`)}`, asB)).body.items).toEqual([]);
    const foreignUser = await fx.call('GET', `/users/${userA.id}/events`, asB);
    expect(foreignUser.status).toBe(404);
    expect(foreignUser.body.code).toBe('not_found');
    const header = await fx.call('GET', '/events', { ...asB, headers: { tenant_id: tenantA } });
    expect(header.status).toBe(403);
    expect(header.body.code).toBe('forbidden');
  });

  it('a cursor of another tenant, another list or another query is 400; a forged one too', async () => {
    const first = await fx.call('GET', '/events?limit=1', inTenant(tenantA));
    const cursor = first.body.next_cursor as string;
    const invalid = {
      code: 'invalid_request',
      message: 'query.cursor: is invalid, or belongs to another list or query; start again without cursor',
    };
    const replays = [
      fx.call('GET', `/events?limit=1&cursor=${cursor}`, { token: tokenB }),
      fx.call('GET', `/events?limit=1&cursor=${cursor}`, inTenant(tenantB)),
      fx.call('GET', `/events?limit=1&cursor=${cursor}&q=${q('(client_id=a-app)')}`, inTenant(tenantA)),
      fx.call('GET', `/events?limit=1&cursor=${cursor}&from=2000-01-01`, inTenant(tenantA)),
      fx.call('GET', `/users/${userA.id}/events?limit=1&cursor=${cursor}`, inTenant(tenantA)),
      fx.call('GET', `/events?limit=1&cursor=${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'AB' : 'AA'}`, inTenant(tenantA)),
      fx.call('GET', `/events?cursor=${Buffer.from(JSON.stringify({ p: 0, k: { PK: `EVENTS#${tenantA}` } })).toString('base64url')}`, {
        token: tokenB,
      }),
    ];
    for (const res of await Promise.all(replays)) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalid);
    }
    // The same cursor in its own list and tenant goes on, with any limit.
    const next = await fx.call('GET', `/events?limit=4&cursor=${cursor}`, inTenant(tenantA));
    expect(next.status).toBe(200);
    expect(next.body.items).toEqual((await expected(tenantA)).slice(1, 5));
  });
});

describe('scope and authentication', () => {
  it('401 without a token; 403 insufficient_scope without read:events; the Default Client and tenant admins hold it', async () => {
    const none = await fx.call('GET', '/events', { token: null });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('unauthorized');
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const token = await fx.svc.managementToken('read:users');
    for (const path of ['/events', `/users/${randomUUID()}/events`]) {
      const res = await fx.call('GET', path, { token });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      expect(res.body.message).toContain('read:events');
      expect(res.headers.get('www-authenticate')).toContain('read:events');
    }
    expect(fx.scopesOf(await fx.svc.managementToken())).toContain('read:events');
    expect(TENANT_ADMIN_SCOPES).toContain('read:events');
  });

  it("a user's own token without read:events may not read its own events (admin-only)", async () => {
    const user = await fx.createUser();
    const res = await fx.call('GET', `/users/${user.id}/events`, { token: await fx.userToken(user.id) });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
  });
});

describe('tenant admins and the OpenAPI document', () => {
  it("a tenant admin's own token reads its tenant's events, not another's; a plain user's token with the scope claim is 403", async () => {
    const tenant = await createTenant(runtime());
    const other = await createTenant(runtime());
    await record(tenant, 3, { client_id: 'admin-app' });
    await record(other, 2, { client_id: 'other-app' });
    const admin = await fx.createUser({}, { tenant_id: tenant });
    const plain = await fx.createUser({}, { tenant_id: tenant });
    expect((await fx.call('POST', `/tenants/${tenant}/admins`, { body: { users: [admin.id] } })).status).toBe(204);
    const token = await fx.userToken(admin.id, { scope: 'read:events' });
    const res = await fx.call('GET', '/events?limit=100', { token });
    expect(res.status).toBe(200);
    const mine = await expected(tenant);
    expect(res.body.items).toEqual(mine);
    expect(mine.filter((e) => e.client_id === 'admin-app')).toHaveLength(3);
    const foreign = await fx.call('GET', '/events', { token, headers: { tenant_id: other } });
    expect(foreign.status).toBe(403);
    const refused = await fx.call('GET', '/events', { token: await fx.userToken(plain.id, { scope: 'read:events' }) });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
  });

  it('/openapi.json documents both routes: the read:events scope, the parameters, the list answer', async () => {
    const res = await fetch(`${fx.svc.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    for (const path of ['/identity/v1/events', '/identity/v1/users/{user_id}/events']) {
      const op = doc.paths[path].get;
      expect(op.security).toContainEqual({ managementApi: ['read:events'] });
      expect(op.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name)).toEqual([
        'limit',
        'cursor',
        'q',
        'from',
        'to',
        'fields',
        'offset',
        'sort',
        'total_count',
      ]);
      expect(Object.keys(op.responses)).toContain('200');
    }
    expect(doc.paths['/identity/v1/users/{user_id}/events'].get.parameters.find((p: any) => p.in === 'path').name).toBe('user_id');
  });
});

describe('parameters', () => {
  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=1e2', 'limit'],
    ['limit=', 'limit'],
    ['cursor=not*a*cursor', 'cursor'],
    [`q=${q('(nope=1)')}`, 'q'],
    [`q=${q('(type=login.bogus)')}`, 'q'],
    [`q=${q('(type!=login.failed)')}`, 'q'],
    [`q=${q('(user_id=not-a-uuid)')}`, 'q'],
    [`q=${q('(reason=locked)')}`, 'q'],
    [`q=${q('(occurred_at=yesterday)')}`, 'q'],
    [`q=${'x'.repeat(2001)}`, 'q'],
    ['from=yesterday', 'from'],
    ['from=2026-02-30', 'from'],
    ['to=2026-11-20T10:00:00', 'to'],
    ['from=2026-11-20&to=2026-11-20', 'to'],
    ['from=2026-11-21&to=2026-11-20', 'to'],
    ['offset=5', 'offset'],
    ['sort=occurred_at:desc', 'sort'],
    ['total_count=true', 'total_count'],
    ['fields=nope', 'fields'],
  ])('%s is 400 naming query.%s', async (query, name) => {
    for (const path of ['/events', `/users/${randomUUID()}/events`]) {
      const res = await fx.call('GET', `${path}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(res.body.message).toMatch(new RegExp(`^query\\.${name}: `));
      expect(res.body.message).not.toContain('bogus');
    }
  });
});

describe('retention', () => {
  it('hides an expired event at once (ttl passed, still in the table) and shows one inside the retention', async () => {
    const tenant = await createTenant(runtime());
    await record(tenant, 1, { type: 'login.failed', start: Date.now() - 31 * DAY });
    await record(tenant, 1, { type: 'login.succeeded', start: Date.now() - 29 * DAY });
    const stored = await storedEvents(runtime(), tenant);
    expect(stored.map((e) => e.type)).toEqual(['login.failed', 'login.succeeded']);
    expect(stored[0]!.ttl * 1000).toBeLessThan(Date.now());
    const res = await fx.call('GET', '/events', inTenant(tenant));
    expect(res.body.items.map((e: any) => e.type)).toEqual(['login.succeeded']);
    const windowed = await fx.call('GET', '/events?from=2000-01-01', inTenant(tenant));
    expect(windowed.body.items.map((e: any) => e.id)).toEqual([stored[1]!.id]);
  });

  it('sets ttl from EVENTS_RETENTION_DAYS and lists by it', async () => {
    const svc = await startTestService({ env: { EVENTS_RETENTION_DAYS: '7', MULTI_TENANT: 'true' } });
    try {
      const rt = svc.stack.runtime;
      const tenant = await createTenant(rt);
      const log = eventLogOf(rt);
      const at6 = new Date(Date.now() - 6 * DAY);
      const at8 = new Date(Date.now() - 8 * DAY);
      await log.record(newEvent('login.succeeded', at6, {}, { tenant_id: tenant }));
      await log.record(newEvent('login.failed', at8, {}, { tenant_id: tenant }));
      const stored = await storedEvents(rt, tenant);
      expect(stored.map((e) => [e.type, e.ttl])).toEqual([
        ['login.failed', Math.floor(at8.getTime() / 1000) + 7 * 86_400],
        ['login.succeeded', Math.floor(at6.getTime() / 1000) + 7 * 86_400],
      ]);
      const call = managementCaller(svc.url, await svc.managementToken());
      const res = await call('GET', '/events', inTenant(tenant));
      expect(res.status).toBe(200);
      expect(res.body.items.map((e: any) => e.type)).toEqual(['login.succeeded']);
    } finally {
      await svc.stop();
    }
  });
});
