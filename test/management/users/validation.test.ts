import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_LIMITS } from '#shared/management/users/user-body-schemas.ts';
import { type UsersFixture, usersFixture } from '../../support/management/users-fixture.ts';

let fx: UsersFixture;
let userId: string;
beforeAll(async () => {
  fx = await usersFixture();
  userId = (await fx.createUser()).id;
});
afterAll(async () => fx?.stop());

const base = { email: 'valid@example.com' };

/** [field path in the message, body] of bodies that must be 400 on create (and, bar the first, on PATCH). */
const BAD: readonly (readonly [string, Record<string, unknown>])[] = [
  ['body.email', { email: 'not-an-email' }],
  ['body.email', { email: 'two@@example.com' }],
  ['body.email', { email: 'sp ace@example.com' }],
  ['body.email', { email: `${'a'.repeat(USER_LIMITS.email)}@example.com` }],
  ['body.email', { email: 'ctl\u0007@example.com' }],
  ['body.email', { email: 'bidi\u202e@example.com' }],
  ['body.email', { email: 42 }],
  // Case-folding tricks: U+212A KELVIN SIGN lower-cases to `k`, fullwidth letters stay apart.
  ['body.email', { email: '\u212Aate@example.com' }],
  ['body.email', { email: '\uff41lice@example.com' }],
  ['body.email', { email: 'alice@b\u00fccher.example' }],
  ['body.username', { username: 'has@sign' }],
  ['body.username', { username: '+15551234567' }],
  ['body.username', { username: 'white space' }],
  ['body.username', { username: 'ünïcode' }],
  ['body.username', { username: '' }],
  ['body.username', { username: 'u'.repeat(USER_LIMITS.username + 1) }],
  ['body.phone_number', { phone_number: '0612345678' }],
  ['body.phone_number', { phone_number: '+0123' }],
  ['body.phone_number', { phone_number: '+1234567890123456' }],
  ['body.phone_number', { phone_number: '+1 415 555 0100' }],
  ['body.picture', { picture: 'javascript:alert(1)' }],
  ['body.picture', { picture: 'ftp://example.com/a.png' }],
  ['body.website', { website: 'example.com' }],
  ['body.website', { website: `https://example.com/${'a'.repeat(USER_LIMITS.url)}` }],
  ['body.birthdate', { birthdate: '1990-02-30' }],
  ['body.birthdate', { birthdate: '1990-13-01' }],
  ['body.birthdate', { birthdate: '90-01-01' }],
  ['body.birthdate', { birthdate: '1990-1-1' }],
  ['body.zoneinfo', { zoneinfo: 'Mars/Olympus' }],
  ['body.zoneinfo', { zoneinfo: '../etc/passwd' }],
  ['body.locale', { locale: 'not a locale' }],
  ['body.locale', { locale: 'en_US' }],
  ['body.name', { name: '' }],
  ['body.name', { name: '   ' }],
  ['body.name', { name: 'n'.repeat(USER_LIMITS.name + 1) }],
  ['body.name', { name: 'line\nbreak' }],
  ['body.address.country', { address: { country: 'x'.repeat(USER_LIMITS.addressPart + 1) } }],
  ['body.address.planet', { address: { planet: 'Mars' } }],
  ['body.address', { address: [] }],
  ['body.user_metadata', { user_metadata: { big: 'x'.repeat(USER_LIMITS.userMetadataBytes) } }],
  ['body.user_metadata', { user_metadata: [] }],
  ['body.user_metadata', { user_metadata: { '': 1 } }],
  [
    'body.app_metadata',
    {
      app_metadata: [
        { key: 'a', value: '1' },
        { key: 'a', value: '2' },
      ],
    },
  ],
  ['body.email_verified', { email_verified: 'yes' }],
  ['body.emial', { emial: 'typo@example.com' }],
  ['body.blocked', { blocked: true }],
  ['body.id', { id: '019b0000-0000-7000-8000-0000000000ff' }],
  ['body.password_hash', { password_hash: '$argon2id$v=19$m=1,t=1,p=1$AAAA$AAAA' }],
  ['body.logins_count', { logins_count: 99 }],
];

describe('Users validation (docs/management-users.md bounds): 400 naming the field, nothing written', () => {
  it.each(BAD)('create: %s', async (field, body) => {
    const res = await fx.call('POST', '/users', { body: { ...base, ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.message).toContain(field);
  });

  it.each(BAD.filter(([f]) => f !== 'body.blocked'))('patch: %s', async (field, body) => {
    const before = (await fx.call('GET', `/users/${userId}`)).body;
    const res = await fx.call('PATCH', `/users/${userId}`, { body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.message).toContain(field);
    expect((await fx.call('GET', `/users/${userId}`)).body).toEqual(before);
  });

  it('create without any login identifier is 400 naming body.email; any one of the three suffices', async () => {
    const res = await fx.call('POST', '/users', { body: { name: 'Nobody' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('body.email');
    expect((await fx.call('POST', '/users', { body: { username: `only-${Date.now()}` } })).status).toBe(201);
    expect((await fx.call('POST', '/users', { body: { phone_number: '+33612345678' } })).status).toBe(201);
  });

  it('accepts the edge shapes: year-only and year-withheld birthdates, UTC, a 254-character email', async () => {
    const local = 'a'.repeat(USER_LIMITS.email - '@example.com'.length);
    for (const body of [
      { birthdate: '1990' },
      { birthdate: '0000-02-29' },
      { birthdate: '2000-02-29' },
      { zoneinfo: 'UTC' },
      { locale: 'zh-Hant-TW' },
      { email: `${local}@example.com` },
    ]) {
      const res = await fx.call('POST', '/users', { body: { email: `edge-${Math.random()}@example.com`, ...body } });
      expect(res.status, JSON.stringify(body)).toBe(201);
    }
  });

  it('a body that is not a JSON object is 400', async () => {
    for (const body of ['[]', '"x"', '{"email":"a@example.com","email":"b@example.com"}', '{']) {
      const res = await fx.call('POST', '/users', { body });
      expect(res.status, body).toBe(400);
    }
  });
});
