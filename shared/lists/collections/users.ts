import { defineCollection } from '../collection-spec.ts';
import { AUDIT_FIELDS } from './audit.ts';

/**
 * `GET /users` (docs/contract.md §6). `q=(email=...)`, `(username=...)`, `(phone_number=...)` are served by
 * the uniqueness markers (list-users.ts), never by reading the collection. `password` is not an
 * attribute: it is write-only and nothing of it is stored in the record a list reads.
 */
export const usersCollection = defineCollection({
  name: 'users',
  attributes: {
    id: 'uuid',
    tenant_id: 'uuid',
    email: 'string',
    email_verified: 'boolean',
    username: 'string',
    phone_number: 'string',
    phone_verified: 'boolean',
    name: 'string',
    given_name: 'string',
    family_name: 'string',
    middle_name: 'string',
    nickname: 'string',
    picture: 'string',
    website: 'string',
    gender: 'string',
    birthdate: 'string',
    zoneinfo: 'string',
    locale: 'string',
    address: 'object',
    user_metadata: 'object',
    app_metadata: 'array',
    blocked: 'boolean',
    last_login: 'timestamp',
    logins_count: 'number',
    aggregations: 'object',
    ...AUDIT_FIELDS,
  },
  /** The user's User Identities (docs/management-users.md "User identities"): `expand=all` only, an empty list when none. */
  children: ['identities'],
});
