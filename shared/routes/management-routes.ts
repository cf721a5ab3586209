import { LIST, READ, SECRETS, WRITE } from './access-profiles.ts';
import { client } from './auth-rules.ts';
import { MANAGEMENT_BASE as M, managementGroup } from './management-group.ts';
import type { Route } from './route.ts';

/** The management API (docs/contract.md §6): one group per area, declared with `managementGroup`. */
export const MANAGEMENT_ROUTES: readonly Route[] = [
  ...managementGroup('clients', [
    ['GET', '', 'list-clients', 'read', LIST],
    ['POST', '', 'create-client', 'create', SECRETS],
    ['GET', '/{client_id}', 'get-client', 'read', { table: 'read', kms: ['decrypt'] }],
    ['PATCH', '/{client_id}', 'update-client', 'update', SECRETS],
    ['PUT', '/{client_id}', 'update-client', 'update', SECRETS],
    ['DELETE', '/{client_id}', 'delete-client', 'delete', WRITE],
    ['POST', '/{client_id}/secret', 'change-client-secret', 'update:client_keys', SECRETS],
    ['GET', '/{client_id}/resources', 'list-client-resources', 'read', LIST],
    ['POST', '/{client_id}/resources', 'authorize-client-resources', 'update', WRITE],
    ['DELETE', '/{client_id}/resources', 'revoke-client-resources', 'update', WRITE],
    ['GET', '/{client_id}/permissions', 'list-client-permissions', 'read', LIST],
    ['POST', '/{client_id}/permissions', 'grant-client-permissions', 'update', WRITE],
    ['DELETE', '/{client_id}/permissions', 'revoke-client-permissions', 'update', WRITE],
  ]),

  ...managementGroup('resources', [
    ['GET', '', 'list-resources', 'read', LIST],
    ['POST', '', 'create-resource', 'create', SECRETS],
    ['GET', '/{resource_id}', 'get-resource', 'read', { table: 'read', kms: ['decrypt'] }],
    ['PATCH', '/{resource_id}', 'update-resource', 'update', SECRETS],
    ['PUT', '/{resource_id}', 'update-resource', 'update', SECRETS],
    ['DELETE', '/{resource_id}', 'delete-resource', 'delete', WRITE],
    ['GET', '/{resource_id}/scopes', 'list-resource-scopes', 'read', LIST],
    ['POST', '/{resource_id}/scopes', 'create-resource-scope', 'update', WRITE],
    ['GET', '/{resource_id}/scopes/{scope_id}', 'get-resource-scope', 'read', READ],
    ['PATCH', '/{resource_id}/scopes/{scope_id}', 'update-resource-scope', 'update', WRITE],
    ['PUT', '/{resource_id}/scopes/{scope_id}', 'update-resource-scope', 'update', WRITE],
    ['DELETE', '/{resource_id}/scopes/{scope_id}', 'delete-resource-scope', 'update', WRITE],
    ['GET', '/{resource_id}/clients', 'list-resource-clients', 'read', LIST],
    ['POST', '/{resource_id}/clients', 'authorize-resource-clients', 'update', WRITE],
    ['DELETE', '/{resource_id}/clients', 'revoke-resource-clients', 'update', WRITE],
  ]),

  // Users (docs/contract.md §6, §7.5, §7.6; docs/management-users.md). Password and OTP are "self" routes.
  ...managementGroup('users', [
    ['GET', '', 'list-users', 'read', LIST],
    ['POST', '', 'create-user', 'create', WRITE],
    ['GET', '/{user_id}', 'get-user', 'read', READ],
    ['PATCH', '/{user_id}', 'update-user', 'update', WRITE],
    ['PUT', '/{user_id}', 'update-user', 'update', WRITE],
    ['DELETE', '/{user_id}', 'delete-user', 'delete', WRITE],
    ['POST', '/{user_id}/block', 'block-user', 'update', WRITE],
    ['POST', '/{user_id}/unblock', 'unblock-user', 'update', WRITE],
    ['PUT', '/{user_id}/password', 'set-user-password', 'update', WRITE, { self: 'user_id' }],
    ['POST', '/{user_id}/otp', 'enroll-user-otp', 'update', SECRETS, { self: 'user_id' }],
    ['DELETE', '/{user_id}/otp', 'remove-user-otp', 'update', WRITE, { self: 'user_id' }],
    // Every authenticator of the user, TOTP and passkeys (docs/management-users.md "Authenticators").
    ['GET', '/{user_id}/authenticators', 'list-user-authenticators', 'read', LIST, { self: 'user_id' }],
    ['DELETE', '/{user_id}/authenticators/{authenticator_id}', 'remove-user-authenticator', 'update', WRITE, { self: 'user_id' }],
  ]),
  // Roles (docs/management-roles.md).
  ...managementGroup('roles', [
    ['GET', '', 'list-roles', 'read', LIST],
    ['POST', '', 'create-role', 'create', WRITE],
    ['GET', '/{role_id}', 'get-role', 'read', READ],
    ['PATCH', '/{role_id}', 'update-role', 'update', WRITE],
    ['PUT', '/{role_id}', 'update-role', 'update', WRITE],
    ['DELETE', '/{role_id}', 'delete-role', 'delete', WRITE],
    ['GET', '/{role_id}/permissions', 'list-role-permissions', 'read', LIST],
    ['POST', '/{role_id}/permissions', 'grant-role-permissions', 'update', WRITE],
    ['DELETE', '/{role_id}/permissions', 'revoke-role-permissions', 'update', WRITE],
    ['GET', '/{role_id}/members', 'list-role-members', 'read', LIST],
    ['POST', '/{role_id}/members', 'add-role-members', 'update', WRITE],
    ['DELETE', '/{role_id}/members', 'remove-role-members', 'update', WRITE],
  ]),
  // Roles seen from the user: the same member links (docs/management-roles.md).
  ...managementGroup('users', [
    ['GET', '/{user_id}/roles', 'list-user-roles', 'read', LIST],
    ['POST', '/{user_id}/roles', 'add-user-roles', 'update', WRITE],
    ['DELETE', '/{user_id}/roles', 'remove-user-roles', 'update', WRITE],
  ]),

  // Groups (docs/contract.md §6, §7.6; docs/management-groups.md).
  ...managementGroup('groups', [
    ['GET', '', 'list-groups', 'read', LIST],
    ['POST', '', 'create-group', 'create', WRITE],
    ['GET', '/{group_id}', 'get-group', 'read', READ],
    ['PATCH', '/{group_id}', 'update-group', 'update', WRITE],
    ['PUT', '/{group_id}', 'update-group', 'update', WRITE],
    ['DELETE', '/{group_id}', 'delete-group', 'delete', WRITE],
    ['GET', '/{group_id}/groups', 'list-nested-groups', 'read', LIST],
    ['POST', '/{group_id}/groups', 'add-nested-groups', 'update', WRITE],
    ['DELETE', '/{group_id}/groups', 'remove-nested-groups', 'update', WRITE],
    ['GET', '/{group_id}/members', 'list-group-members', 'read', LIST],
    ['POST', '/{group_id}/members', 'add-group-members', 'update', WRITE],
    ['DELETE', '/{group_id}/members', 'remove-group-members', 'update', WRITE],
    ['GET', '/{group_id}/roles', 'list-group-roles', 'read', LIST],
    ['POST', '/{group_id}/roles', 'add-group-roles', 'update', WRITE],
    ['DELETE', '/{group_id}/roles', 'remove-group-roles', 'update', WRITE],
  ]),
  // A user's groups from the user's side (the same links); GET with inherited groups is rbac-tokens'.
  ...managementGroup('users', [
    ['POST', '/{user_id}/groups', 'add-user-groups', 'update', WRITE],
    ['DELETE', '/{user_id}/groups', 'remove-user-groups', 'update', WRITE],
  ]),
  // Effective RBAC seen from the user (docs/rbac.md): direct + inherited groups, effective permissions with sources.
  ...managementGroup('users', [
    ['GET', '/{user_id}/groups', 'list-user-groups', 'read', LIST],
    ['GET', '/{user_id}/permissions', 'list-user-permissions', 'read', LIST],
  ]),
  // A user's direct permissions (docs/management-users.md); the GET of effective permissions is rbac-tokens'.
  ...managementGroup('users', [
    ['POST', '/{user_id}/permissions', 'grant-user-permissions', 'update', WRITE],
    ['DELETE', '/{user_id}/permissions', 'revoke-user-permissions', 'update', WRITE],
  ]),

  // User Identities (docs/contract.md §6, §7.7; docs/management-users.md "User identities").
  ...managementGroup('users', [
    ['GET', '/{user_id}/identities', 'list-user-identities', 'read', LIST],
    ['POST', '/{user_id}/identities', 'link-user-identity', 'update', WRITE],
    ['DELETE', '/{user_id}/identities/{identity_id}', 'unlink-user-identity', 'update', WRITE],
  ]),

  // User Grants (docs/browser-flows.md "User Grants"): withdrawing one
  // revokes that client's refresh tokens of the user.
  ...managementGroup('users', [
    ['GET', '/{user_id}/grants', 'list-user-grants', 'read:grants', LIST],
    ['DELETE', '/{user_id}/grants/{grant_id}', 'delete-user-grant', 'delete:grants', WRITE],
  ]),
  // Security events (docs/events.md "Query API"): a user's, and the tenant's below.
  ...managementGroup('users', [['GET', '/{user_id}/events', 'list-user-events', 'read:events', LIST]]),
  ...managementGroup('events', [['GET', '', 'list-events', 'read:events', LIST]]),

  // Self-service sign-up (docs/contract.md §6, §7.5; docs/users.md "Registration and email"): the client
  // authenticates itself; the one function that sends email. Throttled on its own: API Gateway's
  // per-route bucket is shared by all callers, so it caps the stage's sign-up rate (and its SES
  // spend), not one caller's (docs/security.md "Rate limits").
  {
    method: 'POST',
    path: `${M}/users/register`,
    handler: 'functions/users/register',
    auth: client,
    access: { ...WRITE, email: true },
    throttle: { rateLimit: 10, burstLimit: 20 },
  },
  // Tenants (docs/contract.md §4, §6; docs/tenants.md): who may call is decided in the use cases.
  ...managementGroup('tenants', [
    ['GET', '', 'list-tenants', 'read', LIST],
    ['POST', '', 'create-tenant', 'create', WRITE],
    ['GET', '/{tenant_id}', 'get-tenant', 'read', READ],
    ['PATCH', '/{tenant_id}', 'update-tenant', 'update', WRITE],
    ['DELETE', '/{tenant_id}', 'delete-tenant', 'delete', WRITE],
    ['GET', '/{tenant_id}/admins', 'list-tenant-admins', 'read', LIST],
    ['POST', '/{tenant_id}/admins', 'add-tenant-admins', 'update', WRITE],
    ['DELETE', '/{tenant_id}/admins', 'remove-tenant-admins', 'update', WRITE],
  ]),
  // Tenant Identity Providers (docs/contract.md §6, §7.5; docs/federation.md "Identity providers"): paths
  // under a tenant, handlers in their own folder. Create and modify seal the provider's client secret.
  ...managementGroup('tenants', [
    ['GET', '/{tenant_id}/identity-providers', 'list-identity-providers', 'read:identity_providers', LIST],
    ['POST', '/{tenant_id}/identity-providers', 'create-identity-provider', 'create:identity_providers', SECRETS],
    ['GET', '/{tenant_id}/identity-providers/{provider_id}', 'get-identity-provider', 'read:identity_providers', READ],
    ['PATCH', '/{tenant_id}/identity-providers/{provider_id}', 'update-identity-provider', 'update:identity_providers', SECRETS],
    ['PUT', '/{tenant_id}/identity-providers/{provider_id}', 'update-identity-provider', 'update:identity_providers', SECRETS],
    ['DELETE', '/{tenant_id}/identity-providers/{provider_id}', 'delete-identity-provider', 'delete:identity_providers', WRITE],
  ]).map((route) => ({ ...route, handler: route.handler.replace('functions/tenants/', 'functions/identity-providers/') })),
  // Tickets (docs/contract.md §6; docs/browser-flows.md "Tickets"): the page's links.
  ...managementGroup('tickets', [
    ['POST', '/password-change', 'create-password-change-ticket', 'create:tickets', WRITE],
    ['POST', '/email-verification', 'create-email-verification-ticket', 'create:tickets', WRITE],
    ['POST', '/otp-enrollment', 'create-otp-enrollment-ticket', 'create:tickets', WRITE],
  ]),
];
