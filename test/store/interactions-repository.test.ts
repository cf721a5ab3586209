import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import {
  INTERACTION_LIFETIME_SECONDS,
  interactionsRepository,
  type NewInteraction,
} from '#shared/store/sessions/interactions-repository.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';

let table: TestTable;
let clock = new Date('2030-01-01T00:00:00.000Z');
const repo = () => interactionsRepository(table.db, table.tableName, () => clock);
const stored = async (id: string) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: keys.interaction(id), ConsistentRead: true }))).Item;

const NEW: NewInteraction = {
  kind: 'authorize',
  tenant_id: 'tenant-1',
  client_id: 'client-1',
  scopes: ['openid', 'read:things'],
  resource_id: 'resource-1',
  prompt: ['consent'],
  max_age: 300,
  login_hint: 'ada@example.com',
  return_to: '/authorize/resume?interaction=X',
  payload: { redirect_uri: 'https://app.example.com/cb', state: 's', nested: { a: [1, 2] } },
};
const LOGIN = { user_id: 'user-1', session_id: 'session-1', auth_time: 1_893_456_000, amr: ['pwd' as const] };

beforeAll(async () => {
  table = await createTestTable('interactions');
});

describe('interactions repository (docs/browser-flows.md "Interactions")', () => {
  it('creates with a 256-bit URL-safe id, the pinned fields, 10 minutes of life and ttl; reads it back', async () => {
    clock = new Date('2030-01-01T00:00:00.000Z');
    const created = await repo().createInteraction(NEW);
    expect(created.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(INTERACTION_LIFETIME_SECONDS).toBe(600);
    expect(await stored(created.id)).toEqual({
      PK: `INTERACTION#${created.id}`,
      SK: 'INTERACTION',
      type: 'Interaction',
      schema_version: 1,
      ...NEW,
      id: created.id,
      created_at: '2030-01-01T00:00:00.000Z',
      expires_at: '2030-01-01T00:10:00.000Z',
      ttl: Date.parse('2030-01-01T00:10:00.000Z') / 1000,
    });
    expect(await repo().readInteraction(created.id)).toEqual(created);
    clock = new Date('2030-01-01T00:10:00.000Z');
    expect(await repo().readInteraction(created.id)).toBeUndefined();
    expect(await repo().recordLogin(created.id, LOGIN)).toBeUndefined();
    expect(await repo().consumeInteraction(created.id)).toBeUndefined();
    expect(await repo().readInteraction('../../etc')).toBeUndefined();
  });

  it('recordLogin sets who logged in and clears an earlier decision; recordDecision only for that session', async () => {
    clock = new Date('2030-01-01T00:00:00.000Z');
    const { id } = await repo().createInteraction(NEW);
    expect(await repo().recordDecision(id, 'session-1', { decision: 'deny' })).toBeUndefined(); // nobody logged in yet
    const logged = await repo().recordLogin(id, LOGIN);
    expect(logged).toMatchObject(LOGIN);
    expect(await repo().recordDecision(id, 'other-session', { decision: 'allow', granted_scopes: ['openid'] })).toBeUndefined();
    expect((await stored(id))?.decision).toBeUndefined();
    const allowed = await repo().recordDecision(id, 'session-1', { decision: 'allow', granted_scopes: ['openid'] });
    expect(allowed).toMatchObject({ decision: 'allow', granted_scopes: ['openid'] });
    const denied = await repo().recordDecision(id, 'session-1', { decision: 'deny' });
    expect(denied?.decision).toBe('deny');
    expect(denied?.granted_scopes).toBeUndefined();
    const again = await repo().recordLogin(id, { ...LOGIN, user_id: 'user-2', session_id: 'session-2' });
    expect(again?.decision).toBeUndefined();
    expect(again).toMatchObject({ user_id: 'user-2', session_id: 'session-2' });
  });

  it('consumeInteraction returns the item once; 20 parallel consumers: exactly one gets it, and it is gone', async () => {
    clock = new Date('2030-01-01T00:00:00.000Z');
    const { id } = await repo().createInteraction(NEW);
    await repo().recordLogin(id, LOGIN);
    const results = await Promise.all(Array.from({ length: 20 }, () => repo().consumeInteraction(id)));
    const winners = results.filter((r) => r !== undefined);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ ...NEW, ...LOGIN, id });
    expect(await stored(id)).toBeUndefined();
    expect(await repo().readInteraction(id)).toBeUndefined();
    expect(await repo().consumeInteraction(id)).toBeUndefined();
  });

  it('20-way races on 10 interactions at once: each is consumed exactly once', async () => {
    clock = new Date('2030-01-01T00:00:00.000Z');
    const ids = await Promise.all(Array.from({ length: 10 }, async () => (await repo().createInteraction(NEW)).id));
    const results = await Promise.all(ids.flatMap((id) => Array.from({ length: 20 }, () => repo().consumeInteraction(id))));
    const won = results.filter((r) => r !== undefined).map((r) => r!.id);
    expect(won.sort()).toEqual([...ids].sort());
  });
});
