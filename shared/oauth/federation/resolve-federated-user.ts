import * as v from 'valibot';
import { badRequest, conflict } from '../../errors.ts';
import type { ProviderIdentity } from '../../federation/verify-provider-id-token.ts';
import type { IdentityProviderRecord } from '../../records/identity-provider-record.ts';
import type { NewUser, UserRecord } from '../../records/user-record.ts';
import type { UserIdentitiesRepository } from '../../store/users/user-identities-repository.ts';
import type { UsersRepository } from '../../store/users/users-repository.ts';
import { emailAddress, httpUrl, personName } from '../../validation/profile-claims.ts';

/** What `resolveFederatedUser` depends on (built in shared/wiring/federated-user.ts). */
export interface FederatedUserDeps {
  readonly users: Pick<UsersRepository, 'get' | 'findIdByLogin'>;
  readonly identities: Pick<UserIdentitiesRepository, 'userIdOf' | 'createUserWithIdentity' | 'dropStaleMarker'>;
}

/** The claims a new user copies (docs/contract.md §7.7), each held to the Users API's own rules. */
const COPIED = { email: emailAddress, name: personName, given_name: personName, family_name: personName, picture: httpUrl } as const;

/**
 * The profile of a new federated user: each copied claim that passes the Users API's rule for its
 * field (docs/management-users.md "User identities"); one that does not (an email in a form our
 * users cannot have, a `picture` that is not an http(s) URL) is left out, as if the provider had
 * not sent it, rather than refusing the sign-in. `email_verified` only with an email, false unless
 * the token says true.
 */
export function federatedProfile(identity: ProviderIdentity): Omit<NewUser, 'tenant_id'> {
  const out: Record<string, unknown> = {};
  for (const [field, rule] of Object.entries(COPIED)) {
    const value = identity[field as keyof typeof COPIED];
    if (value !== undefined && v.is(rule, value)) out[field] = value;
  }
  if (out.email !== undefined) out.email_verified = identity.email_verified === true;
  return out as Omit<NewUser, 'tenant_id'>;
}

const emailTaken = () =>
  badRequest('email: a user with this email exists; link the identity through the management API first (docs/contract.md §7.7).');

/** Rounds of "read the marker, else create": a lost race costs one more; a stale marker one more. */
const ATTEMPTS = 3;

/**
 * The user linked to (provider, identity.sub); else a new user created and linked in one
 * transaction. Race-safe: of two concurrent first sign-ins one creates, the other finds the
 * marker taken, re-reads it and returns the winner's user. An email held by another user of the
 * provider's tenant is 400 `invalid_request` (docs/contract.md §7.7): nothing is linked silently.
 * Does NOT check `blocked` (the callers do).
 */
export async function resolveFederatedUser(
  deps: FederatedUserDeps,
  provider: IdentityProviderRecord,
  identity: ProviderIdentity,
  actor: string,
): Promise<UserRecord> {
  const key = { providerId: provider.id, providerUserId: identity.sub };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const userId = await deps.identities.userIdOf(key.providerId, key.providerUserId);
    if (userId !== undefined) {
      const user = await deps.users.get(userId);
      // A provider belongs to one tenant and so do its identities' users; anything else is not ours to answer.
      if (user) {
        if (user.tenant_id !== provider.tenant_id) throw conflict('The identity belongs to another tenant.');
        return user;
      }
      // The user was deleted and its identity sweep did not finish: the marker is free again.
      await deps.identities.dropStaleMarker(key);
      continue;
    }
    const profile = federatedProfile(identity);
    const emailFree =
      profile.email === undefined || (await deps.users.findIdByLogin(provider.tenant_id, 'email', profile.email)) === undefined;
    const result = emailFree
      ? await deps.identities.createUserWithIdentity({ ...profile, tenant_id: provider.tenant_id }, key, actor)
      : { taken: 'email' as const };
    if ('user' in result) return result.user;
    // The email may be the user a concurrent first sign-in of this same identity just created (its
    // email and identity markers land in one transaction): then the next round finds that user.
    if (result.taken === 'email' && (await deps.identities.userIdOf(key.providerId, key.providerUserId)) === undefined) throw emailTaken();
  }
  throw conflict('The identity is being linked concurrently; retry.');
}
