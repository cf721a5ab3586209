import * as v from 'valibot';
import { hashPassword, needsRehash, verifyPassword } from '../../users/password-hash.ts';
import { defineGrant } from './token-grant.ts';
import { logUserIn, type SecretCheck } from './user-login.ts';

const required = v.pipe(v.string(), v.minLength(1, 'is required'), v.maxLength(1024));

/**
 * RFC 6749 §4.3 resource owner password credentials (API.md §5.1): `username` is the user's
 * username, email or phone number; the password is checked against its argon2id hash. Never on
 * by default: the client must list `password` in its grant_types (API.md §5.1, RFC 9700 §2.4
 * "MUST NOT be used"; kept for the spec's first-party clients). Brute force, unknown and blocked
 * users: user-login.ts.
 */
export const password = defineGrant({
  name: 'password',
  params: v.looseObject({ username: required, password: required }),

  handle({ client }, request, deps) {
    return logUserIn(client, request.username, request, passwordCheck(request.password), deps);
  },
});

/** The password check of a login (this grant, the hosted login page). */
export function passwordCheck(password: string): SecretCheck {
  return {
    // An unknown user, or one without a password, is checked against the dummy hash: equal time.
    verify: (user) => verifyPassword(password, user?.password_hash),
    // Parameters rose since this hash was made: store a fresh one of the password just checked.
    rehash: async (user) =>
      user.password_hash && needsRehash(user.password_hash)
        ? { oldHash: user.password_hash, newHash: await hashPassword(password) }
        : undefined,
  };
}
