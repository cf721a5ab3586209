import { describe, expect, it } from 'vitest';
import {
  changedFields,
  isWriteMethod,
  managementEvent,
  managementEventType,
  managementTarget,
  sentMembers,
} from '#shared/management/kit/management-event.ts';
import { EVENT_TYPES } from '#shared/records/event-record.ts';
import { ROUTES } from '#shared/routes/route-table.ts';

/** The event of a management write, built from its route (docs/events.md "Management writes"). */
const M = '/identity/v1';
const U = '0190a0b0-0000-7000-8000-000000000001';
const X = '0190a0b0-0000-7000-8000-000000000002';
const write = (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', template: string, body?: unknown) => ({
  method,
  template: `${M}${template}`,
  params: { user_id: U, client_id: X, tenant_id: X, provider_id: U, resource_id: X, scope_id: U, grant_id: X, authenticator_id: X },
  body,
});

describe('managementEventType', () => {
  it.each([
    ['POST', '/users/{user_id}/block', undefined, 'user.blocked'],
    ['POST', '/users/{user_id}/unblock', undefined, 'user.unblocked'],
    ['DELETE', '/users/{user_id}', undefined, 'user.deleted'],
    ['PUT', '/users/{user_id}/password', { password: 'x' }, 'password.changed'],
    ['POST', '/users/{user_id}/otp', { password: 'x' }, 'authenticator.enrolled'],
    ['DELETE', '/users/{user_id}/otp', undefined, 'authenticator.removed'],
    ['DELETE', '/users/{user_id}/authenticators/{authenticator_id}', undefined, 'authenticator.removed'],
    ['DELETE', '/users/{user_id}/grants/{grant_id}', undefined, 'consent.withdrawn'],
    ['PATCH', '/users/{user_id}', { blocked: true }, 'user.blocked'],
    ['PUT', '/users/{user_id}', { blocked: false, name: 'n' }, 'user.unblocked'],
    ['PATCH', '/users/{user_id}', { password: 'x' }, 'password.changed'],
    ['PATCH', '/users/{user_id}', { blocked: 'yes' }, 'management.updated'],
    ['PATCH', '/users/{user_id}', { name: 'n' }, 'management.updated'],
    ['POST', '/users', { email: 'e' }, 'management.created'],
    ['POST', '/users/{user_id}/identities', {}, 'management.created'],
    ['POST', '/users/{user_id}/roles', {}, 'management.updated'],
    ['DELETE', '/users/{user_id}/roles', {}, 'management.deleted'],
    ['POST', '/resources/{resource_id}/scopes', {}, 'management.created'],
    ['POST', '/tenants/{tenant_id}/identity-providers', {}, 'management.created'],
    ['POST', '/tickets/password-change', {}, 'management.created'],
    ['POST', '/clients/{client_id}/secret', undefined, 'management.updated'],
    ['POST', '/clients/{client_id}/resources', {}, 'management.updated'],
    ['DELETE', '/clients/{client_id}', undefined, 'management.deleted'],
  ] as const)('%s %s %j: %s', (method, template, body, type) => {
    expect(managementEventType(write(method, template, body))).toBe(type);
  });
});

describe('managementTarget', () => {
  it.each([
    ['POST', '/clients', { type: 'client', id: '' }],
    ['POST', '/tenants/{tenant_id}/identity-providers', { type: 'identity_provider', id: '' }],
    ['POST', '/tickets/otp-enrollment', { type: 'ticket', id: '' }],
    ['PATCH', '/tenants/{tenant_id}/identity-providers/{provider_id}', { type: 'identity_provider', id: U }],
    ['DELETE', '/resources/{resource_id}/scopes/{scope_id}', { type: 'scope', id: U }],
    ['POST', '/clients/{client_id}/permissions', { type: 'client', id: X }],
    ['POST', '/users/{user_id}/otp', { type: 'authenticator', id: 'totp' }],
    ['DELETE', '/users/{user_id}/authenticators/{authenticator_id}', { type: 'authenticator', id: X }],
    ['DELETE', '/users/{user_id}/grants/{grant_id}', { type: 'grant', id: X }],
    ['PUT', '/users/{user_id}/password', { type: 'user', id: U }],
    ['PATCH', '/tenants/{tenant_id}', { type: 'tenant', id: X }],
  ] as const)('%s %s: %j', (method, template, target) => {
    expect(managementTarget(write(method, template))).toEqual(target);
  });

  it('every write route of the table has a type of the catalogue and a target, without throwing', () => {
    const writes = ROUTES.filter((r) => r.path.startsWith(`${M}/`) && isWriteMethod(r.method) && r.auth.type === 'bearer');
    expect(writes.length).toBeGreaterThan(50);
    for (const r of writes) {
      const params = Object.fromEntries([...r.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => [m[1]!, U]));
      const w = { method: r.method, template: r.path, params, body: undefined };
      expect(EVENT_TYPES).toContain(managementEventType(w));
      expect(managementTarget(w).type, r.path).toMatch(/^[a-z_]+$/);
    }
  });

  it('a route that names no record is a bug of the table, not an event without a target', () => {
    expect(() => managementTarget({ method: 'PATCH', template: `${M}/settings`, params: {} })).toThrow('Route bug');
  });
});

describe('changed fields', () => {
  it('are the top-level member names, sorted, never their values', () => {
    expect(changedFields({ password: 'p4ss', client_name: 'x', user_metadata: { a: 1 } })).toEqual([
      'client_name',
      'password',
      'user_metadata',
    ]);
    expect(changedFields(undefined)).toEqual([]);
    expect(changedFields(['a'])).toEqual([]);
    expect(changedFields(null)).toEqual([]);
  });

  it('are only those the caller sent: a default the schema filled in or a member it dropped is not one', () => {
    expect(changedFields({ provider_name: 'p', enabled: true, scopes: ['openid'] }, ['provider_name', 'id'])).toEqual(['provider_name']);
  });

  it('sentMembers reads the names of a JSON object body, and nothing else', () => {
    expect(sentMembers('{"b":1,"a":{"c":2}}')).toEqual(['b', 'a']);
    expect(sentMembers(undefined)).toBeUndefined();
    expect(sentMembers('')).toBeUndefined();
    expect(sentMembers('[1]')).toBeUndefined();
    expect(sentMembers('null')).toBeUndefined();
    expect(sentMembers('{not json')).toBeUndefined();
  });
});

describe('managementEvent', () => {
  it('holds the actor, tenant, target, user, field names and route, and the origin', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const e = managementEvent(
      { ...write('PUT', '/users/{user_id}/password', { password: 'hunter2-secret' }), sent: ['password'] },
      { sub: X, client_id: X },
      U,
      at,
      { request_id: 'req-1', source_ip: '192.0.2.1', user_agent: 'ua' },
    );
    expect(e).toEqual({
      type: 'password.changed',
      occurred_at: '2026-01-02T03:04:05.678Z',
      request_id: 'req-1',
      source_ip: '192.0.2.1',
      user_agent: 'ua',
      tenant_id: U,
      client_id: X,
      user_id: U,
      actor: { sub: X, client_id: X },
      target: { type: 'user', id: U },
      changed_fields: ['password'],
      details: { route: `PUT ${M}/users/{user_id}/password` },
    });
    expect(JSON.stringify(e)).not.toContain('hunter2');
  });

  it("names no user on a route that is not a user's", () => {
    const e = managementEvent(write('PATCH', '/clients/{client_id}', { client_name: 'c' }), { sub: U }, X, new Date(), {});
    expect(e.user_id).toBeUndefined();
    expect(e.client_id).toBeUndefined();
    expect(e.target).toEqual({ type: 'client', id: X });
  });
});

describe('isWriteMethod', () => {
  it('POST, PUT, PATCH and DELETE write; GET and HEAD do not', () => {
    expect(['POST', 'PUT', 'PATCH', 'DELETE', 'GET', 'HEAD', 'OPTIONS'].map(isWriteMethod)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
