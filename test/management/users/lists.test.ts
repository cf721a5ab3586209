import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type UsersFixture, usersFixture } from '../../support/management/users-fixture.ts';

let fx: UsersFixture;
beforeAll(async () => {
  fx = await usersFixture();
});
afterAll(async () => fx?.stop());

const q = (term: string, extra = '') => fx.call('GET', `/users?q=${encodeURIComponent(term)}${extra}`);

describe('GET /users (docs/contract.md §3, §6)', () => {
  it('lists in creation order with total_count, limit and cursor paging', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await fx.createUser());
    const all = await fx.call('GET', '/users?limit=100&total_count=true');
    expect(all.status).toBe(200);
    expect(all.body.total_count).toBe(all.body.items.length);
    const ids = all.body.items.map((u: any) => u.id);
    expect(ids.slice(-3)).toEqual(made.map((u) => u.id));
    expect(JSON.stringify(all.body)).not.toMatch(/password|argon2|tokens_revoked_at|"version"/);
    const first = await fx.call('GET', '/users?limit=2');
    expect(first.body.has_more).toBe(true);
    const second = await fx.call('GET', `/users?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items[0].id).toBe(ids[2]);
  });

  it('q=(email=...) finds the user in any case, through the marker and never a read of the collection', async () => {
    const u = await fx.createUser({ email: `Mixed.Case-${Date.now()}@Example.COM` });
    const { runtime } = fx.svc.stack;
    const send = vi.spyOn(runtime.db, 'send');
    let lookups: any;
    try {
      lookups = await Promise.all([q(`(email=${u.email})`), q(`(email=${u.email.toLowerCase()})`), q(`(email=${u.email.toUpperCase()})`)]);
      // No Query of the users collection (GSI1 TENANT#...#USERS) while the lookups ran.
      // The spy sees the service's reads (marker GetItems): the check below is not vacuous.
      expect(send.mock.calls.some(([cmd]) => String((cmd as any).input?.Key?.PK ?? '').startsWith('UNIQUE#USER_EMAIL#'))).toBe(true);
      const queries = send.mock.calls.map(([cmd]) => cmd).filter((cmd) => cmd instanceof QueryCommand);
      expect(queries.filter((cmd: any) => String(cmd.input.ExpressionAttributeValues?.[':pk'] ?? '').endsWith('#USERS'))).toEqual([]);
    } finally {
      send.mockRestore();
    }
    for (const res of lookups) {
      expect(res.status).toBe(200);
      expect(res.body.items.map((x: any) => x.id)).toEqual([u.id]);
      expect(res.body.count).toBe(1);
    }
    expect((await q(`(email=nobody-${Date.now()}@example.com)`, '&total_count=true')).body).toMatchObject({
      count: 0,
      total_count: 0,
      items: [],
    });
  });

  it('q on username (any case) and phone_number, combined with other terms and with each other', async () => {
    const name = `Finder-${Date.now()}`;
    const u = await fx.createUser({ username: name, phone_number: '+4915112345678', name: 'Finder' });
    expect((await q(`(username=${name.toLowerCase()})`)).body.items.map((x: any) => x.id)).toEqual([u.id]);
    expect((await q('(phone_number=+4915112345678)')).body.items.map((x: any) => x.id)).toEqual([u.id]);
    expect((await q(`(username=${name}) and (phone_number=+4915112345678)`)).body.count).toBe(1);
    // Two identifiers of different users: nobody has both.
    const other = await fx.createUser();
    expect((await q(`(username=${name}) and (email=${other.email})`)).body.count).toBe(0);
    // The other terms still filter the record found.
    expect((await q(`(username=${name}) and (name=Finder)`)).body.count).toBe(1);
    expect((await q(`(username=${name}) and (name=Other)`)).body.count).toBe(0);
    expect((await q(`(username=${name}) and (blocked=true)`)).body.count).toBe(0);
    expect((await q(`(username=${name})`, '&fields=id,username')).body.items).toEqual([{ id: u.id, username: name }]);
  });

  it('q on other attributes takes the general path; bad q, sort and fields are 400', async () => {
    await fx.createUser({ name: 'General Path' });
    const res = await q('(name=General Path)');
    expect(res.status).toBe(200);
    expect(res.body.items.every((x: any) => x.name === 'General Path')).toBe(true);
    expect(res.body.count).toBeGreaterThan(0);
    expect((await q('(password=x)')).status).toBe(400);
    expect((await q('(password_hash=x)')).status).toBe(400);
    expect((await fx.call('GET', '/users?sort=password_hash')).status).toBe(400);
    expect((await fx.call('GET', '/users?fields=password')).status).toBe(400);
    expect((await fx.call('GET', '/users?fields=tokens_revoked_at')).status).toBe(400);
  });
});

describe('uniqueness (docs/contract.md §6): email without case, username without case, phone_number, per tenant', () => {
  it('a taken email in any case is 409 naming body.email; username and phone likewise', async () => {
    const u = await fx.createUser({ username: `Uniq-${Date.now()}`, phone_number: '+12025550123' });
    const dupEmail = await fx.call('POST', '/users', { body: { email: u.email.toUpperCase() } });
    expect(dupEmail.status).toBe(409);
    expect(dupEmail.body.message).toContain('body.email');
    expect(dupEmail.body.message).not.toContain(u.email.toUpperCase());
    const dupName = await fx.call('POST', '/users', { body: { username: u.username.toLowerCase() } });
    expect(dupName.status).toBe(409);
    expect(dupName.body.message).toContain('body.username');
    const dupPhone = await fx.call('POST', '/users', { body: { phone_number: '+12025550123' } });
    expect(dupPhone.status).toBe(409);
    expect(dupPhone.body.message).toContain('body.phone_number');
    // PATCH of another user to a taken value (case variant): 409, nothing changes.
    const other = await fx.createUser();
    const moved = await fx.call('PATCH', `/users/${other.id}`, { body: { email: u.email.toUpperCase(), name: 'changed' } });
    expect(moved.status).toBe(409);
    expect((await fx.call('GET', `/users/${other.id}`)).body).toEqual(other);
  });

  it('20 concurrent creates of one email (mixed case): exactly one 201, the rest 409', async () => {
    const email = `race-${Date.now()}@example.com`;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => fx.call('POST', '/users', { body: { email: i % 2 ? email : email.toUpperCase() } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(19);
    expect((await q(`(email=${email})`)).body.count).toBe(1);
  });

  it('concurrent email changes of two users to one address: one wins, the other keeps its own', async () => {
    const target = `swap-${Date.now()}@example.com`;
    const a = await fx.createUser();
    const b = await fx.createUser();
    const [ra, rb] = await Promise.all([
      fx.call('PATCH', `/users/${a.id}`, { body: { email: target } }),
      fx.call('PATCH', `/users/${b.id}`, { body: { email: target.toUpperCase() } }),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    const winner = ra.status === 200 ? a : b;
    const loser = winner === a ? b : a;
    expect((await q(`(email=${target})`)).body.items.map((x: any) => x.id)).toEqual([winner.id]);
    expect((await q(`(email=${loser.email})`)).body.items.map((x: any) => x.id)).toEqual([loser.id]);
  });

  it('an email swapped between two users in sequence frees and retakes the markers', async () => {
    const a = await fx.createUser();
    const b = await fx.createUser();
    const tmp = `tmp-${Date.now()}@example.com`;
    expect((await fx.call('PATCH', `/users/${a.id}`, { body: { email: tmp } })).status).toBe(200);
    expect((await fx.call('PATCH', `/users/${b.id}`, { body: { email: a.email } })).status).toBe(200);
    expect((await fx.call('PATCH', `/users/${a.id}`, { body: { email: b.email } })).status).toBe(200);
    expect((await q(`(email=${a.email})`)).body.items[0].id).toBe(b.id);
    expect((await q(`(email=${b.email})`)).body.items[0].id).toBe(a.id);
    expect((await q(`(email=${tmp})`)).body.count).toBe(0);
  });
});
