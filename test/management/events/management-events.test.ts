import { randomUUID } from 'node:crypto';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '#shared/logger.ts';
import type { EventRecord, EventType } from '#shared/records/event-record.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import type { Route } from '#shared/routes/route.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { GOOD_PASSWORD } from '../../support/management/users-fixture.ts';
import { storedEvents } from '../../support/store/stored-events.ts';
import type { Kind } from '../isolation/isolation-fixture.ts';
import { BODIES, PATH_KINDS, pathParams, routeKey } from '../isolation/walk-table.ts';
import { type ManagementEventsFixture, managementEventsFixture } from './management-events-fixture.ts';

/**
 * Every management write records one event, in the same transaction as the write (docs/events.md
 * "Management writes"): the walk calls every write route of the route table once, as the global
 * Default Client working in tenant A, and reads what the table holds afterwards.
 */
const M = '/identity/v1';
const WRITES = ROUTES.filter((r) => r.path.startsWith(`${M}/`) && r.method !== 'GET' && r.auth.type === 'bearer');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Routes whose type is not management.created/updated/deleted: what an account's owner looks for. */
const TYPES: Readonly<Record<string, EventType>> = {
  [`POST ${M}/users/{user_id}/block`]: 'user.blocked',
  [`POST ${M}/users/{user_id}/unblock`]: 'user.unblocked',
  [`DELETE ${M}/users/{user_id}`]: 'user.deleted',
  [`PUT ${M}/users/{user_id}/password`]: 'password.changed',
  [`POST ${M}/users/{user_id}/otp`]: 'authenticator.enrolled',
  [`DELETE ${M}/users/{user_id}/otp`]: 'authenticator.removed',
  [`DELETE ${M}/users/{user_id}/authenticators/{authenticator_id}`]: 'authenticator.removed',
  [`DELETE ${M}/users/{user_id}/grants/{grant_id}`]: 'consent.withdrawn',
};

/** The POSTs that create a record, with the record's type: their target id is the new record's. */
const CREATES: Readonly<Record<string, string>> = {
  [`POST ${M}/clients`]: 'client',
  [`POST ${M}/resources`]: 'resource',
  [`POST ${M}/resources/{resource_id}/scopes`]: 'scope',
  [`POST ${M}/users`]: 'user',
  [`POST ${M}/users/{user_id}/identities`]: 'identity',
  [`POST ${M}/roles`]: 'role',
  [`POST ${M}/groups`]: 'group',
  [`POST ${M}/tenants`]: 'tenant',
  [`POST ${M}/tenants/{tenant_id}/identity-providers`]: 'identity_provider',
  [`POST ${M}/tickets/password-change`]: 'ticket',
  [`POST ${M}/tickets/email-verification`]: 'ticket',
  [`POST ${M}/tickets/otp-enrollment`]: 'ticket',
};

/** The target of a route below its first record: the deepest record its path names. */
const NESTED_TARGETS: Readonly<Record<string, [type: string, param: string]>> = {
  '/scopes/{scope_id}': ['scope', 'scope_id'],
  '/identity-providers/{provider_id}': ['identity_provider', 'provider_id'],
  '/identities/{identity_id}': ['identity', 'identity_id'],
  '/authenticators/{authenticator_id}': ['authenticator', 'authenticator_id'],
  '/grants/{grant_id}': ['grant', 'grant_id'],
};

/** Values the walk adds to the tables' bodies: secrets and metadata a stored event must never hold. */
const SECRET_EXTRAS: Readonly<Record<string, Record<string, unknown>>> = {
  [`POST ${M}/users`]: { password: `${GOOD_PASSWORD}-walk`, user_metadata: { shoe_size: 'secret-shoe-42' } },
  [`PATCH ${M}/users/{user_id}`]: { user_metadata: { favourite: 'metadata-value-patch' } },
  [`POST ${M}/tenants/{tenant_id}/identity-providers`]: { client_secret: `idp-secret-${randomUUID()}` },
  [`PATCH ${M}/tenants/{tenant_id}/identity-providers/{provider_id}`]: { client_secret: `idp-secret-${randomUUID()}` },
};

/** The order of the walk: writes that add first, then removals of links, of nested records, of records. */
function order(r: Route): number {
  if (r.method !== 'DELETE') {
    if (routeKey(r) in CREATES) return -1;
    // Before the block: a user token minted in the second its user was blocked is refused.
    if (r.path.endsWith('/otp')) return -0.5;
    return r.path.endsWith('/password') ? 1 : 0;
  }
  const rest = r.path.slice(M.length).split('/').filter(Boolean);
  if (rest.length === 2) return r.path.endsWith('/tenants/{tenant_id}') ? 5 : 4;
  if (pathParams(r.path).length > 1 || r.path.endsWith('/otp')) return 3;
  // A client's permissions on a resource go with its authorization: they are revoked first.
  return r.path.endsWith('/permissions') ? 2 : 2.5;
}

let w: ManagementEventsFixture;
/** The records the walk created, by kind: the DELETEs of records remove these. */
const created: Partial<Record<Kind, string>> = {};
const warn = vi.spyOn(logger, 'warn');

beforeAll(async () => {
  w = await managementEventsFixture();
}, 180_000);
afterAll(async () => w?.fx.stop());

const eventsOf = (tenant: string) => storedEvents(w.fx.svc.stack.runtime, tenant);

/** The events of `tenant` not in `before`. */
async function newEvents(tenant: string, before: readonly EventRecord[]) {
  const known = new Set(before.map((e) => e.id));
  return (await eventsOf(tenant)).filter((e) => !known.has(e.id));
}

/** Every string in `value`, at any depth. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

/**
 * The id of `kind` in a walked route's path: A's, but a removal of a record removes one the walk
 * created (A's stay for the routes after it), and a scope is made in, and removed from, the
 * resource the walk created.
 */
function pathId(route: Route, param: string, kind: Kind): string {
  const params = pathParams(route.path);
  // A record's removal (DELETE /roles/{role_id}) or a nested one's (.../scopes/{scope_id}); not /users/{user_id}/otp.
  const removed = order(route) >= 4 || (order(route) === 3 && params.length > 1 && params.at(-1) === param);
  if (removed && created[kind]) return created[kind]!;
  const scopeOfCreated = route.path.endsWith('/scopes') || (order(route) >= 3 && route.path.includes('/scopes/'));
  if (kind === 'resource' && scopeOfCreated) return created.resource!;
  return w.a[kind]!;
}

/** The id of `kind` in a walked route's body: links go to the records the walk created (A's are linked already). */
function bodyId(route: Route, kind: Kind): string {
  const key = routeKey(route);
  if (kind === 'tenant' || key in CREATES) return w.a[kind]!;
  return created[kind] ?? w.a[kind]!;
}

/** The target the event of `route` must name. */
function expectedTarget(route: Route, params: Record<string, string>, reply: Record<string, any> | undefined) {
  const key = routeKey(route);
  if (key in CREATES) return { type: CREATES[key]!, id: reply?.id };
  if (route.path.endsWith('/otp')) return { type: 'authenticator', id: 'totp' };
  for (const [suffix, [type, param]] of Object.entries(NESTED_TARGETS)) if (route.path.endsWith(suffix)) return { type, id: params[param] };
  const [collection] = route.path.slice(M.length + 1).split('/');
  const first = pathParams(route.path)[0]!;
  return { type: collection!.replace(/s$/, ''), id: params[first] };
}

describe('management writes record their event (docs/events.md "Management writes")', () => {
  it('every write route of the table: exactly one event, its type, target, actor, tenant and field names, no value', async () => {
    const problems: string[] = [];
    const writes = writesOf(w.fx.svc.stack.runtime.db);
    const walked = [...WRITES].sort((x, y) => order(x) - order(y));
    expect(walked.length).toBeGreaterThan(50);
    for (const route of walked) {
      const key = routeKey(route);
      const params: Record<string, string> = {};
      for (const p of pathParams(route.path)) params[p] = pathId(route, p, PATH_KINDS[p]!);
      const path = route.path.replace(/\{([a-z_]+)\}/g, (_, p: string) => params[p]!).slice(M.length);
      const spec = BODIES[key]!;
      const base = spec === 'none' ? undefined : spec((kind) => bodyId(route, kind), randomUUID().slice(0, 8));
      const body = base && SECRET_EXTRAS[key] ? { ...base, ...SECRET_EXTRAS[key] } : base;
      const before = await eventsOf(w.tenantA);
      writes.sent.length = 0;
      // Only the user itself enrols an authenticator (docs/contract.md §7.6): its own token.
      const self = key === `POST ${M}/users/{user_id}/otp`;
      const actor = self
        ? { sub: params.user_id!, client_id: w.fx.svc.clientId }
        : { sub: w.fx.svc.clientId, client_id: w.fx.svc.clientId };
      const reply = await w.fx.call(route.method, path, {
        headers: { ...(self ? {} : { tenant_id: w.tenantA }), 'user-agent': 'walk-agent/1.0' },
        ...(self ? { token: await w.fx.userToken(params.user_id!) } : {}),
        ...(body ? { body } : {}),
      });
      if (reply.status >= 300) {
        problems.push(`${key}: ${reply.status} ${JSON.stringify(reply.body)}`);
        continue;
      }
      const sent = [...writes.sent];
      if (key in CREATES && CREATES[key] !== 'ticket')
        created[CREATES[key] === 'identity_provider' ? 'provider' : (CREATES[key] as Kind)] = reply.body.id;
      const events = await newEvents(w.tenantA, before);
      if (events.length !== 1) {
        problems.push(`${key}: ${events.length} events ${JSON.stringify(events.map((e) => e.type))}`);
        continue;
      }
      const [e] = events as [EventRecord & { ttl: number }];
      const target = expectedTarget(route, params, reply.body);
      const userId = route.path.startsWith(`${M}/users/{user_id}`) ? params.user_id : undefined;
      const expected = {
        type:
          TYPES[key] ?? (route.method === 'DELETE' ? 'management.deleted' : key in CREATES ? 'management.created' : 'management.updated'),
        tenant_id: w.tenantA,
        client_id: w.fx.svc.clientId,
        actor,
        target,
        changed_fields: Object.keys(body ?? {}).sort(),
        details: { route: key },
        user_agent: 'walk-agent/1.0',
        ...(userId ? { user_id: userId } : {}),
      };
      const { id, occurred_at, request_id, source_ip, ttl, ...rest } = e;
      if (JSON.stringify(rest) !== JSON.stringify({ ...rest, ...expected }) || Object.keys(rest).length !== Object.keys(expected).length)
        problems.push(`${key}: stored ${JSON.stringify(rest)}, expected ${JSON.stringify(expected)}`);
      if (key in CREATES && !UUID.test(e.target?.id ?? '')) problems.push(`${key}: a create's target id ${e.target?.id}`);
      if (!UUID.test(id) || typeof request_id !== 'string' || !request_id || ttl <= Date.now() / 1000)
        problems.push(`${key}: id ${id}, request_id ${request_id}, ttl ${ttl}`);
      // The event rode on the write that makes the change (it writes the target's or the user's
      // items), not on an incidental write before it (a cache, a backfill: those go without).
      const carriers = sent.filter((x) => x.event);
      const touched = (x: (typeof sent)[number]) =>
        x.keys.some((k) => k.includes(e.target!.id) || (userId !== undefined && k.includes(userId)));
      if (carriers.length !== 1 || !touched(carriers[0]!)) problems.push(`${key}: writes ${JSON.stringify(sent)}`);
      // No value the body held: the tenant id is the event's own (the header's), not taken from it.
      const leaked = strings(body).filter((s) => s.length >= 6 && s !== w.tenantA && JSON.stringify(e).includes(s));
      if (leaked.length) problems.push(`${key}: the event holds body values ${JSON.stringify(leaked)}`);
    }
    writes.stop();
    expect(problems).toEqual([]);
    // Every event rode on the write's own transaction: none was written after the fact.
    expect(warn.mock.calls.filter(([m]) => String(m).includes('management write'))).toEqual([]);
  }, 240_000);

  it('a write that fails records no event: 404, 409, 400 of the body, 400 of the rules, 403', async () => {
    const a = w.a;
    const inA = { tenant_id: w.tenantA };
    const before = await eventsOf(w.tenantA);
    const linked = await w.fx.call('POST', `/roles/${a.role}/members`, { headers: inA, body: { users: [a.user] } });
    expect(linked.status).toBe(204);
    const role = (await w.fx.call('GET', `/roles/${a.role}`, { headers: inA })).body;
    const failures = [
      await w.fx.call('PATCH', `/roles/${randomUUID()}`, { headers: inA, body: { role_description: 'nobody' } }),
      await w.fx.call('POST', `/roles/${a.role}/members`, { headers: inA, body: { users: [a.user] } }),
      await w.fx.call('PATCH', `/roles/${a.role}`, { headers: inA, body: { role_name: 42 } }),
      await w.fx.call('PUT', `/users/${a.user}/password`, { headers: inA, body: { password: 'short' } }),
      await w.fx.call('POST', `/users/${a.user}/otp`, { headers: inA, body: { password: GOOD_PASSWORD } }),
    ];
    expect(failures.map((r) => [r.status, r.body.code])).toEqual([
      [404, 'not_found'],
      [409, 'conflict'],
      [400, 'invalid_request'],
      [400, 'invalid_request'],
      [403, 'forbidden'],
    ]);
    // One event: the link that was made; none of the five that failed.
    const events = await newEvents(w.tenantA, before);
    expect(events.map((e) => [e.type, e.details?.route])).toEqual([['management.updated', `POST ${M}/roles/{role_id}/members`]]);
    expect((await w.fx.call('GET', `/roles/${a.role}`, { headers: inA })).body).toEqual(role);
  });

  it('a write and its event land together or not at all: an event Put that fails takes the write with it', async () => {
    const { runtime } = w.fx.svc.stack;
    const db = runtime.db as unknown as { send: (cmd: any, ...rest: unknown[]) => Promise<unknown> };
    const send = db.send.bind(db);
    let refused = 0;
    // The event's Put is made to fail inside the transaction DynamoDB runs (its condition cannot hold):
    // DynamoDB then cancels every write of it.
    db.send = (cmd: any, ...rest: unknown[]) => {
      for (const item of cmd.constructor.name === 'TransactWriteCommand' ? cmd.input.TransactItems : []) {
        if (item.Put?.Item?.type === 'Event') {
          item.Put.ConditionExpression = 'attribute_exists(PK)';
          refused++;
        }
      }
      return send(cmd, ...rest);
    };
    const inA = { tenant_id: w.tenantA };
    const before = await eventsOf(w.tenantA);
    const role = (await w.fx.call('GET', `/roles/${w.a.role}`, { headers: inA })).body;
    const tickets = await ticketsOf(w.a.user);
    let patched: Awaited<ReturnType<typeof w.fx.call>>;
    let ticket: Awaited<ReturnType<typeof w.fx.call>>;
    try {
      patched = await w.fx.call('PATCH', `/roles/${w.a.role}`, { headers: inA, body: { role_description: 'never stored' } });
      ticket = await w.fx.call('POST', '/tickets/password-change', { headers: inA, body: { user_id: w.a.user } });
    } finally {
      delete (db as { send?: unknown }).send;
    }
    expect(refused).toBeGreaterThanOrEqual(2);
    // The commit's own error: an internal error of the plan; the single write's cancelled transaction.
    expect([patched!.status, patched!.body.code, ticket!.status, ticket!.body.code]).toEqual([500, 'internal_error', 409, 'conflict']);
    expect((await w.fx.call('GET', `/roles/${w.a.role}`, { headers: inA })).body).toEqual(role);
    expect(await ticketsOf(w.a.user)).toEqual(tickets);
    expect(await newEvents(w.tenantA, before)).toEqual([]);
    // And with the Put left alone, the same write lands with its event.
    const ok = await w.fx.call('PATCH', `/roles/${w.a.role}`, { headers: inA, body: { role_description: 'stored' } });
    expect([ok.status, ok.body.role_description]).toEqual([200, 'stored']);
    expect((await newEvents(w.tenantA, before)).map((e) => [e.type, e.target, e.changed_fields])).toEqual([
      ['management.updated', { type: 'role', id: w.a.role }, ['role_description']],
    ]);
  });

  it("events go to the caller's tenant: a tenant-bound client's to its own, a global client's to the header's (default: the default tenant)", async () => {
    const [beforeA, beforeB, beforeDefault] = await Promise.all([eventsOf(w.tenantA), eventsOf(w.tenantB), eventsOf(DEFAULT_TENANT_ID)]);
    const bound = await w.fx.call('PATCH', `/roles/${w.a.role}`, {
      token: w.bound.token,
      body: { role_description: 'by the bound client' },
    });
    const global = await w.fx.call('PATCH', `/roles/${w.b.role}`, {
      headers: { tenant_id: w.tenantB },
      body: { role_description: 'in B' },
    });
    const noHeader = await w.fx.call('POST', '/roles', { body: { role_name: `default ${randomUUID()}` } });
    expect([bound.status, global.status, noHeader.status]).toEqual([200, 200, 201]);
    const pick = (e: EventRecord) => ({ type: e.type, tenant_id: e.tenant_id, actor: e.actor, client_id: e.client_id, target: e.target });
    const global_ = { sub: w.fx.svc.clientId, client_id: w.fx.svc.clientId };
    expect((await newEvents(w.tenantA, beforeA)).map(pick)).toEqual([
      {
        type: 'management.updated',
        tenant_id: w.tenantA,
        actor: { sub: w.bound.clientId, client_id: w.bound.clientId },
        client_id: w.bound.clientId,
        target: { type: 'role', id: w.a.role },
      },
    ]);
    expect((await newEvents(w.tenantB, beforeB)).map(pick)).toEqual([
      {
        type: 'management.updated',
        tenant_id: w.tenantB,
        actor: global_,
        client_id: global_.client_id,
        target: { type: 'role', id: w.b.role },
      },
    ]);
    expect((await newEvents(DEFAULT_TENANT_ID, beforeDefault)).map(pick)).toEqual([
      {
        type: 'management.created',
        tenant_id: DEFAULT_TENANT_ID,
        actor: global_,
        client_id: global_.client_id,
        target: { type: 'role', id: noHeader.body.id },
      },
    ]);
  });

  it("a user's events are also filed under the user (GSI2), as the user's history reads them", async () => {
    const { runtime } = w.fx.svc.stack;
    const before = await eventsOf(w.tenantA);
    const res = await w.fx.call('PATCH', `/users/${w.a.user}`, { headers: { tenant_id: w.tenantA }, body: { name: 'Filed Under' } });
    expect(res.status).toBe(200);
    const [event] = await newEvents(w.tenantA, before);
    expect(event).toMatchObject({ type: 'management.updated', user_id: w.a.user, changed_fields: ['name'] });
    const page = await runtime.db.send(
      new QueryCommand({
        TableName: runtime.config.tableName,
        IndexName: 'GSI2',
        KeyConditionExpression: 'GSI2PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.userEvents(w.a.user) },
      }),
    );
    expect(page.Items?.map((i) => i.id)).toContain(event!.id);
    expect(JSON.stringify(page.Items)).not.toContain('Filed Under');
  });

  it('concurrent writes each carry their own event: the pending event is per request', async () => {
    const before = await eventsOf(w.tenantA);
    const roles = await Promise.all(
      Array.from({ length: 3 }, (_, n) => w.as(w.tenantA)('POST', '/roles', { role_name: `concurrent ${n} ${randomUUID()}` })),
    );
    const patched = await Promise.all(
      roles.flatMap((r) => [
        w.fx.call('PATCH', `/roles/${r.id}`, { headers: { tenant_id: w.tenantA }, body: { role_description: `d ${r.id}` } }),
        w.fx.call('DELETE', `/roles/${r.id}/members`, { headers: { tenant_id: w.tenantA }, body: { users: [w.a.user] } }),
      ]),
    );
    // Each PATCH lands with one event for its role; each DELETE of a link that is not there is 404 and records none.
    expect(patched.map((r) => r.status)).toEqual([200, 404, 200, 404, 200, 404]);
    const events = await newEvents(w.tenantA, before);
    const updates = events.filter((e) => e.type === 'management.updated');
    expect(updates.map((e) => e.target!.id).sort()).toEqual(roles.map((r) => r.id).sort());
    expect(updates.every((e) => JSON.stringify(e.changed_fields) === '["role_description"]')).toBe(true);
    expect(new Set(updates.map((e) => e.request_id)).size).toBe(3);
    expect(
      events
        .filter((e) => e.type === 'management.created')
        .map((e) => e.target!.id)
        .sort(),
    ).toEqual(roles.map((r) => r.id).sort());
    expect(events).toHaveLength(6);
  });

  it('racing identical writes: one lands, with one event; the refused ones record none', async () => {
    const group = await w.as(w.tenantA)('POST', '/groups', { group_name: `race ${randomUUID()}` });
    const before = await eventsOf(w.tenantA);
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        w.fx.call('POST', `/groups/${group.id}/members`, { headers: { tenant_id: w.tenantA }, body: { users: [w.a.user] } }),
      ),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 204)).toHaveLength(1);
    expect(statuses.every((x) => x === 204 || x === 409)).toBe(true);
    const events = await newEvents(w.tenantA, before);
    expect(events.map((e) => [e.type, e.target, e.changed_fields])).toEqual([
      ['management.updated', { type: 'group', id: group.id }, ['users']],
    ]);
  });

  it('a PATCH with an empty body is still a write: one event, no field names, and no event written after the fact', async () => {
    const before = await eventsOf(w.tenantA);
    warn.mockClear();
    const res = await w.fx.call('PATCH', `/roles/${w.a.role}`, { headers: { tenant_id: w.tenantA }, body: {} });
    expect(res.status).toBe(200);
    const events = await newEvents(w.tenantA, before);
    expect(events.map((e) => [e.type, e.target, e.changed_fields])).toEqual([['management.updated', { type: 'role', id: w.a.role }, []]]);
    expect(warn.mock.calls.filter(([m]) => String(m).includes('management write'))).toEqual([]);
  });
});

/** The write commands sent on `db` from now until `stop()`, each with whether it carries an event. */
function writesOf(db: unknown) {
  const client = db as { send: (cmd: any, ...rest: unknown[]) => Promise<unknown> };
  const send = client.send.bind(client);
  const sent: { command: string; event: boolean; keys: string[] }[] = [];
  /** The keys (and a put item's id) a write names, event items left out. */
  const keysOf = (w: any): string[] => {
    if (w?.Item?.type === 'Event') return [];
    const key = w?.Item ?? w?.Key;
    return key ? [`${key.PK}|${key.SK}|${w.Item?.id ?? ''}`] : [];
  };
  client.send = (cmd: any, ...rest: unknown[]) => {
    const command: string = cmd.constructor.name;
    if (/^(Put|Update|Delete|TransactWrite)Command$/.test(command)) {
      const writes: any[] =
        command === 'TransactWriteCommand'
          ? cmd.input.TransactItems.map((i: any) => i.Put ?? i.Update ?? i.Delete ?? i.ConditionCheck)
          : [cmd.input];
      sent.push({ command, event: writes.some((x) => x?.Item?.type === 'Event'), keys: writes.flatMap(keysOf) });
    } else if (command === 'BatchWriteCommand') sent.push({ command, event: false, keys: [] });
    return send(cmd, ...rest);
  };
  return {
    sent,
    stop: () => {
      delete (client as { send?: unknown }).send;
    },
  };
}

/** The ticket items of a user (a consistent Scan: tickets are keyed by their value's hash). */
async function ticketsOf(userId: string) {
  const { runtime } = w.fx.svc.stack;
  const out = await runtime.db.send(
    new ScanCommand({
      TableName: runtime.config.tableName,
      ConsistentRead: true,
      FilterExpression: '#t = :t AND user_id = :u',
      ExpressionAttributeNames: { '#t': 'type' },
      ExpressionAttributeValues: { ':t': 'Ticket', ':u': userId },
    }),
  );
  return (out.Items ?? []).map((i) => i.id).sort();
}
