import * as v from 'valibot';
import { beginPasswordCheck, hashPassword, needsRehash } from '../../users/password-hash.ts';
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
    // The hash starts from the marker's prefix of the user's hash; an unknown user, or one without
    // a password, is checked against the dummy hash: equal time (password-hash.ts).
    start(subject) {
      const begun = beginPasswordCheck(password, subject.marker?.passwordPrefix);
      return { verify: (user) => begun.verify(user?.password_hash), settled: begun.settled };
    },
    // Parameters rose since this hash was made: store a fresh one of the password just checked.
    rehash: async (user) =>
      user.password_hash && needsRehash(user.password_hash)
        ? { oldHash: user.password_hash, newHash: await hashPassword(password) }
        : undefined,
  };
}
