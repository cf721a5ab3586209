import * as v from 'valibot';
import { fieldKit, freeJson, text } from '../management/kit/fields.ts';
import { safeText } from '../validation/safe-text.ts';

/**
 * What a registering client may set (docs/users.md "Registration and email"): the fields Auth0's
 * sign-up endpoint (`POST /dbconnections/signup`) takes, no more: `email` and `password`
 * (required), `username`, `name`, `given_name`, `family_name`, `nickname`, `picture`,
 * `user_metadata`; plus the client's own credentials (`client_id`, `client_secret`, as at
 * `/token`). Everything that states trust or belongs to an administrator is refused by name
 * (`email_verified`, `phone_verified`, `phone_number` (unverifiable here, and a login
 * identifier), `app_metadata`, `blocked`, `tenant_id`, `id`); any other field is an unknown field
 * (400), as in every management body. The bounds are the Users API's (USER_LIMITS).
 */
const fields = fieldKit('reject');

const refused = (why: string) => v.optional(v.never(why));
const adminOnly = refused('cannot be set at registration; an administrator sets it through the Users API');

/** Bounds and formats of the Users API (docs/management-users.md): 254 for an email (RFC 5321), 128 a username. */
const email = v.pipe(
  v.string('must be a string'),
  safeText(),
  v.maxLength(254, 'must be at most 254 characters'),
  v.regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/u, 'must be an email address'),
);
const username = v.pipe(
  v.string('must be a string'),
  v.maxLength(128, 'must be at most 128 characters'),
  v.regex(/^[A-Za-z0-9._-]+$/, 'must be 1 or more ASCII letters, digits, ".", "_" or "-"'),
);
const httpUrl = v.pipe(
  v.string('must be a string'),
  safeText(),
  v.maxLength(2048, 'must be at most 2048 characters'),
  v.check((s) => URL.canParse(s) && /^https?:\/\//i.test(s), 'must be an absolute http or https URL'),
);
const name = text(255);
/** Shape bound before the password rules (shared/users/password-rules.ts: 8 to 128 characters). */
const password = v.pipe(v.string('must be a string'), v.maxLength(1024, 'must be at most 1024 characters'));
/** As at `/token` (authenticate-client.ts checks the id's form). */
const credential = v.optional(v.pipe(v.string('must be a string'), v.maxLength(1024, 'must be at most 1024 characters')));

export const RegisterBody = fields.object({
  client_id: credential,
  client_secret: credential,
  email,
  password,
  username: v.optional(username),
  name: v.optional(name),
  given_name: v.optional(name),
  family_name: v.optional(name),
  nickname: v.optional(name),
  picture: v.optional(httpUrl),
  user_metadata: v.optional(freeJson(16_384)),
  email_verified: refused('cannot be set at registration; the address is verified through the link sent to it'),
  phone_verified: adminOnly,
  phone_number: adminOnly,
  app_metadata: adminOnly,
  blocked: adminOnly,
  tenant_id: refused("cannot be set at registration; the user joins the client's tenant"),
  id: adminOnly,
});
export type RegisterInput = v.InferOutput<typeof RegisterBody>;
