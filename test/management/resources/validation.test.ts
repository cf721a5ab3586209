import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResourcesFixture, resourcesFixture, UNKNOWN_ID } from '../../support/management/resources-fixture.ts';

/**
 * docs/contract.md §2: every invalid input is `400 invalid_request` whose message starts with the field it
 * names. One row per rule of docs/management-resources.md §1.
 */
let fx: ResourcesFixture;
let resourceId: string;
let scopeId: string;
beforeAll(async () => {
  fx = await resourcesFixture();
  resourceId = (await fx.createResource()).id;
  scopeId = (await fx.createScope(resourceId, 'read')).id;
});
afterAll(async () => fx?.stop());

const base = () => ({ resource_type: 'api', resource_name: 'Valid', resource_metadata: { identifier_url: fx.audience() } });
const meta = (m: Record<string, unknown>) => ({ ...base(), resource_metadata: { ...base().resource_metadata, ...m } });
const long = (n: number) => 'x'.repeat(n);

// [case, body, field the message must name]
const createCases: [string, () => unknown, string][] = [
  ['body not an object', () => [], 'body'],
  ['resource_type missing', () => ({ resource_name: 'x' }), 'body.resource_type'],
  ['resource_type not a string', () => ({ ...base(), resource_type: 7 }), 'body.resource_type'],
  ['resource_type blank', () => ({ ...base(), resource_type: '  ' }), 'body.resource_type'],
  ['resource_type too long', () => ({ ...base(), resource_type: long(65) }), 'body.resource_type'],
  ['resource_name missing', () => ({ resource_type: 'api' }), 'body.resource_name'],
  ['resource_name empty', () => ({ ...base(), resource_name: '' }), 'body.resource_name'],
  ['resource_name too long', () => ({ ...base(), resource_name: long(201) }), 'body.resource_name'],
  ['resource_description not a string', () => ({ ...base(), resource_description: null }), 'body.resource_description'],
  ['resource_description too long', () => ({ ...base(), resource_description: long(1001) }), 'body.resource_description'],
  ['resource_metadata not an object', () => ({ ...base(), resource_metadata: 'x' }), 'body.resource_metadata'],
  ['identifier_url not a string', () => meta({ identifier_url: 5 }), 'body.resource_metadata.identifier_url'],
  ['identifier_url relative', () => meta({ identifier_url: '/api' }), 'body.resource_metadata.identifier_url'],
  ['identifier_url with a fragment', () => meta({ identifier_url: 'https://a.example/#x' }), 'body.resource_metadata.identifier_url'],
  ['identifier_url with spaces', () => meta({ identifier_url: 'https://a.example/ x' }), 'body.resource_metadata.identifier_url'],
  ['identifier_url empty', () => meta({ identifier_url: '' }), 'body.resource_metadata.identifier_url'],
  ['identifier_url too long', () => meta({ identifier_url: `https://a.example/${long(1000)}` }), 'body.resource_metadata.identifier_url'],
  ['signing_algorithm unknown', () => meta({ signing_algorithm: 'none' }), 'body.resource_metadata.signing_algorithm'],
  ['signing_algorithm lower case', () => meta({ signing_algorithm: 'es256' }), 'body.resource_metadata.signing_algorithm'],
  [
    'signing_secret under 32 bytes',
    () => meta({ signing_algorithm: 'HS256', signing_secret: long(31) }),
    'body.resource_metadata.signing_secret',
  ],
  [
    'signing_secret not a string',
    () => meta({ signing_algorithm: 'HS256', signing_secret: 12345 }),
    'body.resource_metadata.signing_secret',
  ],
  ['signing_secret missing for HS256', () => meta({ signing_algorithm: 'HS256' }), 'body.resource_metadata.signing_secret'],
  ['signing_secret with ES256', () => meta({ signing_secret: long(40) }), 'body.resource_metadata.signing_secret'],
  ['token_lifetime below 60', () => meta({ token_lifetime: 59 }), 'body.resource_metadata.token_lifetime'],
  ['token_lifetime above 86400', () => meta({ token_lifetime: 86_401 }), 'body.resource_metadata.token_lifetime'],
  ['token_lifetime fractional', () => meta({ token_lifetime: 90.5 }), 'body.resource_metadata.token_lifetime'],
  ['token_lifetime a string', () => meta({ token_lifetime: '3600' }), 'body.resource_metadata.token_lifetime'],
  ['rbac_enabled not boolean', () => meta({ rbac_enabled: 'true' }), 'body.resource_metadata.rbac_enabled'],
  ['scopes_added not boolean', () => meta({ scopes_added: 1 }), 'body.resource_metadata.scopes_added'],
  [
    'skip_consent_for_first_party not boolean',
    () => meta({ skip_consent_for_first_party: null }),
    'body.resource_metadata.skip_consent_for_first_party',
  ],
  ['is_system set by a caller', () => meta({ is_system: true }), 'body.resource_metadata.is_system'],
  ['is_system not boolean', () => meta({ is_system: 'no' }), 'body.resource_metadata.is_system'],
  ['app_metadata not an array', () => ({ ...base(), app_metadata: { a: 'b' } }), 'body.app_metadata'],
  ['app_metadata entry without key', () => ({ ...base(), app_metadata: [{ value: 'b' }] }), 'body.app_metadata.0.key'],
  ['app_metadata value not a string', () => ({ ...base(), app_metadata: [{ key: 'a', value: 1 }] }), 'body.app_metadata.0.value'],
  [
    'app_metadata duplicate keys',
    () => ({
      ...base(),
      app_metadata: [
        { key: 'a', value: '1' },
        { key: 'a', value: '2' },
      ],
    }),
    'body.app_metadata',
  ],
  [
    'app_metadata over 50 entries',
    () => ({ ...base(), app_metadata: Array.from({ length: 51 }, (_, i) => ({ key: `k${i}`, value: 'v' })) }),
    'body.app_metadata',
  ],
];

describe('POST /resources: 400 per invalid field', () => {
  it.each(createCases)('%s', async (_name, body, field) => {
    const res = await fx.call('POST', '/resources', { body: body() });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.message.startsWith(`${field}: `)).toBe(true);
  });

  it('malformed JSON is a 400, not a 500', async () => {
    const res = await fx.call('POST', '/resources', { body: '{"resource_type":' });
    expect(res.status).toBe(400);
  });
});

/**
 * Found by test/management/resources/fuzz.test.ts: identifier_url is part of two DynamoDB
 * keys (its uniqueness marker and GSI2PK), whose 2048-byte limit counts UTF-8 bytes, while the
 * schema counted characters: 980 × `€` passed validation and the write was a 500. Since docs/contract.md §8
 * the limit applies to the RFC 3986 normal form, which is ASCII (non-ASCII characters
 * percent-encoded as UTF-8, RFC 3987 §3.1), so 1000 characters are 1000 bytes.
 */
describe('identifier_url within 1000 characters but over 1000 UTF-8 bytes is a 400, not a 500', () => {
  // 998 UTF-16 units each: 980 × '€' or 'é', 490 × '😀' (a surrogate pair).
  const wide = (c: string) => `https://a.example/${c.repeat(980 / c.length)}`;

  it.each(['€', 'é', '😀'])('POST /resources with 998 characters of %s', async (c) => {
    const res = await fx.call('POST', '/resources', { body: meta({ identifier_url: wide(c) }) });
    expect(res.status, res.body.message).toBe(400);
    expect(res.body.message).toBe('body.resource_metadata.identifier_url: must be at most 1000 characters');
  });

  it('PATCH /resources/{id} with 998 characters of €, nothing changes', async () => {
    const before = await fx.getResource(resourceId);
    const res = await fx.call('PATCH', `/resources/${resourceId}`, { body: { resource_metadata: { identifier_url: wide('€') } } });
    expect(res.status, res.body.message).toBe(400);
    expect(res.body.message).toMatch(/^body\.resource_metadata\.identifier_url: /);
    expect(await fx.getResource(resourceId)).toEqual(before);
  });

  it('a non-ASCII identifier_url within 1000 characters once percent-encoded is accepted, in its URI form', async () => {
    const tail = fx.audience().slice(8);
    const res = await fx.call('POST', '/resources', { body: meta({ identifier_url: `https://a.example/${'€'.repeat(100)}/${tail}` }) });
    expect(res.status, res.body.message).toBe(201);
    expect(res.body.resource_metadata.identifier_url).toBe(`https://a.example/${'%E2%82%AC'.repeat(100)}/${tail}`);
  });
});

const updateCases: [string, unknown, string][] = [
  ['resource_name empty', { resource_name: '' }, 'body.resource_name'],
  ['resource_type changed', { resource_type: 'database' }, 'body.resource_type'],
  ['identifier_url relative', { resource_metadata: { identifier_url: 'api' } }, 'body.resource_metadata.identifier_url'],
  ['signing_algorithm unknown', { resource_metadata: { signing_algorithm: 'HS512' } }, 'body.resource_metadata.signing_algorithm'],
  ['HS256 without a secret', { resource_metadata: { signing_algorithm: 'HS256' } }, 'body.resource_metadata.signing_secret'],
  ['short secret', { resource_metadata: { signing_algorithm: 'HS256', signing_secret: 'short' } }, 'body.resource_metadata.signing_secret'],
  ['token_lifetime 0', { resource_metadata: { token_lifetime: 0 } }, 'body.resource_metadata.token_lifetime'],
  ['is_system flipped', { resource_metadata: { is_system: true } }, 'body.resource_metadata.is_system'],
  ['app_metadata null', { app_metadata: null }, 'body.app_metadata'],
];

describe('PATCH /resources/{id}: 400 per invalid field, nothing changes', () => {
  it.each(updateCases)('%s', async (_name, body, field) => {
    const before = await fx.getResource(resourceId);
    const res = await fx.call('PATCH', `/resources/${resourceId}`, { body });
    expect(res.status).toBe(400);
    expect(res.body.message.startsWith(`${field}: `)).toBe(true);
    expect(await fx.getResource(resourceId)).toEqual(before);
  });
});

const scopeCases: [string, unknown, string][] = [
  ['scope_name missing', {}, 'body.scope_name'],
  ['scope_name empty', { scope_name: '' }, 'body.scope_name'],
  ['scope_name with a space (RFC 6749 §3.3)', { scope_name: 'read users' }, 'body.scope_name'],
  ['scope_name with a double quote', { scope_name: 'read"x' }, 'body.scope_name'],
  ['scope_name with a backslash', { scope_name: 'read\\x' }, 'body.scope_name'],
  ['scope_name non-ASCII', { scope_name: 'lire:données' }, 'body.scope_name'],
  ['scope_name too long', { scope_name: long(256) }, 'body.scope_name'],
  ['scope_name not a string', { scope_name: ['a'] }, 'body.scope_name'],
  ['scope_description not a string', { scope_name: 'ok', scope_description: 5 }, 'body.scope_description'],
  ['scope_description too long', { scope_name: 'ok', scope_description: long(501) }, 'body.scope_description'],
];

describe('scopes: 400 per invalid field', () => {
  it.each(scopeCases)('POST %s', async (_name, body, field) => {
    const res = await fx.call('POST', `/resources/${resourceId}/scopes`, { body });
    expect(res.status).toBe(400);
    expect(res.body.message.startsWith(`${field}: `)).toBe(true);
  });

  it.each(scopeCases.filter(([name]) => !name.includes('missing')))('PATCH %s', async (_name, body, field) => {
    const res = await fx.call('PATCH', `/resources/${resourceId}/scopes/${scopeId}`, { body });
    expect(res.status).toBe(400);
    expect(res.body.message.startsWith(`${field}: `)).toBe(true);
  });

  it('malformed path ids are 400 naming them', async () => {
    expect((await fx.call('GET', `/resources/x/scopes/${scopeId}`)).body.message).toMatch(/^path\.resource_id: /);
    expect((await fx.call('GET', `/resources/${resourceId}/scopes/x`)).body.message).toMatch(/^path\.scope_id: /);
  });
});

const clientsCases: [string, unknown, string][] = [
  ['clients missing', {}, 'body.clients'],
  ['clients not an array', { clients: UNKNOWN_ID }, 'body.clients'],
  ['clients empty', { clients: [] }, 'body.clients'],
  ['a client id not a UUID', { clients: ['nope'] }, 'body.clients.0'],
  ['more than 50 ids (docs/contract.md §6)', { clients: Array.from({ length: 51 }, () => UNKNOWN_ID) }, 'body.clients'],
];

describe('resource clients: 400 per invalid field', () => {
  it.each(clientsCases)('POST and DELETE: %s', async (_name, body, field) => {
    for (const method of ['POST', 'DELETE']) {
      const res = await fx.call(method, `/resources/${resourceId}/clients`, { body });
      expect(res.status).toBe(400);
      expect(res.body.message.startsWith(`${field}: `)).toBe(true);
    }
  });
});

describe('query parameters: 400 naming the parameter (docs/contract.md §3)', () => {
  const paths = () => ['/resources', `/resources/${resourceId}/scopes`, `/resources/${resourceId}/clients`];
  const cases: [string, string][] = [
    ['limit=0', 'query.limit'],
    ['limit=101', 'query.limit'],
    ['offset=-1', 'query.offset'],
    ['expand=true', 'query.expand'],
    ['total_count=1', 'query.total_count'],
    ['fields=nope', 'query.fields'],
    ['sort=nope', 'query.sort'],
    ['q=(nope=1)', 'query.q'],
    ['q=(id=not-a-uuid)', 'query.q'],
    ['cursor=tampered.cursor', 'query.cursor'],
  ];
  it.each(cases)('%s', async (query, param) => {
    for (const path of paths()) {
      const res = await fx.call('GET', `${path}?${query}`);
      expect(res.status, `${path}?${query}`).toBe(400);
      expect(res.body.message.startsWith(`${param}: `)).toBe(true);
    }
  });

  it('single-record reads refuse a bad fields or expand too', async () => {
    expect((await fx.call('GET', `/resources/${resourceId}?fields=secret`)).body.message).toMatch(/^query\.fields: /);
    expect((await fx.call('GET', `/resources/${resourceId}/scopes/${scopeId}?expand=yes`)).body.message).toMatch(/^query\.expand: /);
  });
});
