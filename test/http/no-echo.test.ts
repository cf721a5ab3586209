import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';

/**
 * docs/contract.md §8: "an error never echoes the request path or a request value". Over the real local
 * service, a distinctive marker goes into a request value (or a fresh UUID into a path or body id)
 * and the error must name the field or parameter at fault while neither the body text nor its
 * message carries the marker back.
 */
let svc: TestService;
let admin: string;

beforeAll(async () => {
  svc = await startTestService();
  admin = await svc.managementToken();
});
afterAll(async () => svc?.stop());

/** In no message of ours: the markers below all contain it. */
const CORE = 'zqj';

interface Raw {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

const raw = async (res: Response): Promise<Raw> => {
  const text = await res.text();
  return { status: res.status, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
};

const token = async (params: Record<string, string>): Promise<Raw> =>
  raw(
    await fetch(`${svc.url}/token`, {
      method: 'POST',
      headers: { authorization: basicAuth(svc.clientId, svc.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params),
    }),
  );

const call = async (method: string, path: string, body?: unknown): Promise<Raw> =>
  raw(
    await fetch(`${svc.url}/identity/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  );

/** Neither the body text (escaped or not) nor the message holds `marker`. */
function expectNoEcho(res: Raw, ...markers: string[]): void {
  for (const marker of markers) {
    expect(res.text.toLowerCase(), res.text).not.toContain(marker.toLowerCase());
    expect(String(res.json.message).toLowerCase()).not.toContain(marker.toLowerCase());
  }
}

describe('OAuth /token errors name the field, never the value (docs/contract.md §8)', () => {
  it('a malformed scope token: 400 invalid_scope naming body.scope by place', async () => {
    const marker = `${CORE}"echo`; // '"' is outside RFC 6749 §3.3's scope-token characters
    const res = await token({ grant_type: 'client_credentials', audience: svc.managementAudience, scope: `read:clients ${marker}` });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      code: 'invalid_scope',
      message: 'body.scope: token 2 is not a valid scope token.',
      error: 'invalid_scope',
      error_description: 'body.scope: token 2 is not a valid scope token.',
    });
    expectNoEcho(res, marker, CORE);
  });

  it('a scope not granted to the client: 400 invalid_scope naming body.scope, not the scope', async () => {
    const marker = `${CORE}<echo>`;
    const res = await token({ grant_type: 'client_credentials', audience: svc.managementAudience, scope: `read:clients ${marker}` });
    expect(res.status).toBe(400);
    const message = 'body.scope: names a scope not granted to this client on this resource.';
    expect(res.json).toEqual({ code: 'invalid_scope', message, error: 'invalid_scope', error_description: message });
    expectNoEcho(res, marker, CORE);
  });
});

describe('list parameters name the parameter and a place, never the value (docs/contract.md §3, §8)', () => {
  const cases: [param: string, value: string, message: string][] = [
    ['sort', `${CORE}<echo>`, 'query.sort: sort key 1 is not attr[:asc|:desc]'],
    ['sort', `created_at,${CORE}echo:desc`, 'query.sort: sort key 2 names an unknown attribute'],
    ['sort', `created_at:${CORE}`, 'query.sort: sort key 1: the direction must be asc or desc'],
    ['fields', `${CORE}<echo>`, 'query.fields: field 1 names an unknown attribute'],
    ['fields', `id, ${CORE}echo`, 'query.fields: field 2 names an unknown attribute'],
    ['q', `(${CORE}<echo>=1)`, 'query.q: unknown attribute at position 2'],
    ['q', `(email ${CORE}<echo>)`, 'query.q: expected "=" (the only operator) at position 8'],
    ['q', `(${CORE}echo=1)`, 'query.q: unknown attribute at position 2'],
    ['q', `(email=a) and (id=${CORE}<echo>)`, 'query.q: the value at position 19 must be a UUID'],
  ];
  it.each(cases)('GET /users?%s=%s: 400 %s', async (param, value, message) => {
    const res = await call('GET', `/users?${new URLSearchParams({ [param]: value })}`);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ code: 'invalid_request', message });
    expectNoEcho(res, value, CORE);
  });

  it('the same on another collection (GET /clients?sort=...)', async () => {
    const res = await call('GET', `/clients?${new URLSearchParams({ sort: `${CORE}echo` })}`);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ code: 'invalid_request', message: 'query.sort: sort key 1 names an unknown attribute' });
    expectNoEcho(res, CORE);
  });
});

describe('management records: no id sent comes back (docs/contract.md §6, §8)', () => {
  it.each([
    ['GET', '/users/{id}', 'User not found.'],
    ['DELETE', '/users/{id}', 'User not found.'],
    ['GET', '/clients/{id}', 'Client not found.'],
    ['DELETE', '/roles/{id}', 'Role not found.'],
    ['DELETE', '/groups/{id}', 'Group not found.'],
    ['GET', '/resources/{id}', 'Resource not found.'],
  ])('%s %s with an unknown UUID: 404 not_found, %s', async (method, template, message) => {
    const id = randomUUID();
    const res = await call(method, template.replace('{id}', id));
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ code: 'not_found', message });
    expectNoEcho(res, id);
  });

  it('a path id that is no UUID: 400 naming the path parameter', async () => {
    const res = await call('GET', `/users/${CORE}echo`);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('invalid_request');
    expect(res.json.message).toMatch(/^path\.user_id: /);
    expectNoEcho(res, CORE);
  });

  it('an unknown id in a link body: 404 naming the body field', async () => {
    const group = await call('POST', '/groups', { group_name: `no-echo ${randomUUID()}` });
    expect(group.status).toBe(201);
    const id = randomUUID();
    const res = await call('POST', `/groups/${group.json.id}/members`, { users: [id] });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ code: 'not_found', message: 'body.users: a user was not found.' });
    expectNoEcho(res, id);
  });

  it('an existing link: 409 naming the body field, not the resource or the client', async () => {
    const created = await call('POST', '/resources', {
      resource_type: 'api',
      resource_name: 'no-echo',
      resource_metadata: { identifier_url: `https://no-echo-${randomUUID()}.example.com/` },
    });
    expect(created.status).toBe(201);
    const resourceId = String(created.json.id);
    expect((await call('POST', `/clients/${svc.clientId}/resources`, { resources: [resourceId] })).status).toBe(204);
    const res = await call('POST', `/clients/${svc.clientId}/resources`, { resources: [resourceId] });
    expect(res.status).toBe(409);
    expect(res.json).toEqual({ code: 'conflict', message: 'body.resources: a resource is already authorized to this client.' });
    expectNoEcho(res, resourceId, svc.clientId);
  });
});
