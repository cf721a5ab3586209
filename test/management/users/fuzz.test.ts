import { randomUUID } from 'node:crypto';
import { listQuerySchema, userIdentitiesCollection, usersCollection } from '#shared/lists/index.ts';
import { PermissionsBody } from '#shared/management/kit/permissions-body.ts';
import { UserAuthenticatorPath } from '#shared/management/users/authenticators/user-authenticators.ts';
import { CreateUserBody, SetPasswordBody, UpdateUserBody, UserPath } from '#shared/management/users/user-body-schemas.ts';
import {
  LinkIdentityBody,
  UserIdentityPath,
  userIdentityListQuery,
  userIdentityRecordQuery,
} from '#shared/management/users/user-identities.ts';
import { userRecordQuery } from '#shared/management/users/user-request.ts';
import { type FuzzRoute, fuzzArea, M, type Seeds } from '../../support/fuzz/fuzz-support.ts';

/**
 * docs/design.md §3.12 over the Users endpoints (docs/contract.md §6, §7.5, §7.6): whatever the body, query
 * string, path parameters and headers (the admin's, a tenant-bound client's and the seeded user's
 * own token among them), the answer is never a 5xx, and every 4xx is a JSON `{code, message}`
 * naming where the problem is. `/users/register` belongs to its own area's fuzz file.
 */
const U = `${M}/users`;
const users = { collection: usersCollection, query: userRecordQuery };
const PASSWORD = 'Fuzz-valid-password-2468';
const permission = (resourceId: string, scopes: string[]) => ({ permissions: [{ resource_id: resourceId, scopes }] });

const routes: FuzzRoute[] = [
  { route: `GET ${U}`, collection: usersCollection, query: listQuerySchema(usersCollection) },
  {
    route: `POST ${U}`,
    body: CreateUserBody,
    ...users,
    fitting: () => [
      { email: `fit-${randomUUID()}@example.com` },
      { email: `fit-${randomUUID()}@example.com`, password: PASSWORD, username: `fit-${randomUUID().slice(0, 8)}` },
      { phone_number: '+14155550100', name: 'Fit' },
    ],
  },
  { route: `GET ${U}/{user_id}`, path: UserPath, ...users },
  ...(['PATCH', 'PUT'] as const).map((method) => ({
    route: `${method} ${U}/{user_id}`,
    path: UserPath,
    body: UpdateUserBody,
    ...users,
    fitting: () => [{ name: 'Renamed' }, { email: `moved-${randomUUID()}@example.com` }, { username: null, address: { country: 'NL' } }],
  })),
  { route: `DELETE ${U}/{user_id}`, path: UserPath },
  { route: `POST ${U}/{user_id}/block`, path: UserPath, ...users },
  { route: `POST ${U}/{user_id}/unblock`, path: UserPath, ...users },
  {
    route: `PUT ${U}/{user_id}/password`,
    path: UserPath,
    body: SetPasswordBody,
    fitting: (_s: Seeds) => [{ password: PASSWORD }, { password: `${PASSWORD}-2`, old_password: PASSWORD }],
  },
  { route: `POST ${U}/{user_id}/otp`, path: UserPath },
  { route: `DELETE ${U}/{user_id}/otp`, path: UserPath },
  { route: `GET ${U}/{user_id}/authenticators`, path: UserPath },
  { route: `DELETE ${U}/{user_id}/authenticators/{authenticator_id}`, path: UserAuthenticatorPath },
  // Direct permissions (the seeded user, resource and scopes; a grant then a revoke of the same ones).
  ...(['POST', 'DELETE'] as const).map((method) => ({
    route: `${method} ${U}/{user_id}/permissions`,
    path: UserPath,
    body: PermissionsBody,
    fitting: (s: Seeds) => [
      permission(s.resourceId, [s.scopeId]),
      permission(s.resourceId, [s.scopeId, s.otherScopeId]),
      permission(s.resourceId, [s.scopeId, s.scopeId]),
    ],
  })),
  // User Identities (no provider is seeded: a link names an unknown one, a 404).
  { route: `GET ${U}/{user_id}/identities`, path: UserPath, collection: userIdentitiesCollection, query: userIdentityListQuery },
  {
    route: `POST ${U}/{user_id}/identities`,
    path: UserPath,
    body: LinkIdentityBody,
    collection: userIdentitiesCollection,
    query: userIdentityRecordQuery,
    fitting: () => [{ provider_id: randomUUID(), provider_user_id: `fit-${randomUUID()}` }],
  },
  { route: `DELETE ${U}/{user_id}/identities/{identity_id}`, path: UserIdentityPath },
];

fuzzArea('fuzz: Users endpoints never answer 5xx to client input', {
  table: 'fuzz-users',
  salt: 200,
  // `/users/register` (client authentication, no bearer) is the signup area's.
  // `/users/{user_id}/roles` is fuzzed with the Roles routes (fuzz-management-roles.test.ts),
  // `/users/{user_id}/groups` with the Groups routes (fuzz-management-groups.test.ts), and the
  // effective-RBAC reads (GET `/groups`, `/permissions`) in fuzz-management-rbac.test.ts;
  // `/users/{user_id}/grants` with the User Grants routes (fuzz-management-grants.test.ts),
  // `/users/{user_id}/events` with the events routes (test/management/events/fuzz.test.ts).
  area: (r) =>
    r.path.startsWith(U) &&
    ![`${U}/register`, `${U}/{user_id}/roles`, `${U}/{user_id}/groups`, `${U}/{user_id}/events`].includes(r.path) &&
    !r.path.startsWith(`${U}/{user_id}/grants`) &&
    !(r.method === 'GET' && r.path === `${U}/{user_id}/permissions`),
  routes,
});
