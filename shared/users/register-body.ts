import * as v from 'valibot';
import { CreateUserBody, password, userFields } from '../management/users/user-body-schemas.ts';

/**
 * What a registering client may set (docs/users.md "Registration and email"): the fields Auth0's
 * sign-up endpoint (`POST /dbconnections/signup`) takes, no more: `email` and `password`
 * (required), `username`, `name`, `given_name`, `family_name`, `nickname`, `picture`,
 * `user_metadata`; plus the client's own credentials (`client_id`, `client_secret`, or
 * `client_assertion` and `client_assertion_type`, as at `/token`). Everything that states trust or
 * belongs to an administrator is refused by name
 * (`email_verified`, `phone_verified`, `phone_number` (unverifiable here, and a login
 * identifier), `app_metadata`, `blocked`, `tenant_id`, `id`); any other field is an unknown field
 * (400), as in every management body. The bounds are the Users API's (USER_LIMITS).
 */
const refused = (why: string) => v.optional(v.never(why));
const adminOnly = refused('cannot be set at registration; an administrator sets it through the Users API');

/** The Users API's own field schemas (formats and bounds of docs/management-users.md), taken as they are. */
const user = CreateUserBody.pipe[2].entries;
/** As at `/token` (authenticate-client.ts checks the id's form). */
const credential = v.optional(v.pipe(v.string('must be a string'), v.maxLength(1024, 'must be at most 1024 characters')));

export const RegisterBody = userFields.object({
  client_id: credential,
  client_secret: credential,
  // private_key_jwt (RFC 7523 §2.2), as at `/token`; bounded here as authenticate-client.ts bounds it.
  client_assertion: v.optional(v.pipe(v.string('must be a string'), v.maxLength(8192, 'must be at most 8192 characters'))),
  client_assertion_type: credential,
  email: v.unwrap(user.email),
  password,
  username: user.username,
  name: user.name,
  given_name: user.given_name,
  family_name: user.family_name,
  nickname: user.nickname,
  picture: user.picture,
  user_metadata: user.user_metadata,
  email_verified: refused('cannot be set at registration; the address is verified through the link sent to it'),
  phone_verified: adminOnly,
  phone_number: adminOnly,
  app_metadata: adminOnly,
  blocked: adminOnly,
  tenant_id: refused("cannot be set at registration; the user joins the client's tenant"),
  id: adminOnly,
});
export type RegisterInput = v.InferOutput<typeof RegisterBody>;
