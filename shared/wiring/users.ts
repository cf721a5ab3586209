/**
 * The Users functions' dependencies (functions/users/: users, their permissions, effective RBAC,
 * User Grants and self-registration), built from the runtime once per container.
 */
import { hashPassword, verifyPassword } from '../crypto/password-hash.ts';
import { emailSenderOf } from '../email/email-sender-of.ts';
import type { ConsentDeps } from '../management/consents/consent-deps.ts';
import { userManagementScopes } from '../management/held-scopes.ts';
import type { RbacDeps } from '../management/rbac/rbac-deps.ts';
import type { AuthenticatorDeps } from '../management/users/authenticators/authenticator-deps.ts';
import type { UserDeps } from '../management/users/user-deps.ts';
import type { UserPermissionDeps } from '../management/users/user-permission-deps.ts';
import type { Runtime } from '../runtime.ts';
import { identityProviderReads } from '../store/federation/identity-providers-repository.ts';
import { groupsRepository } from '../store/rbac/groups-repository.ts';
import { heldPermissions } from '../store/rbac/held-permissions.ts';
import { resourcesRepository } from '../store/resources/resources-repository.ts';
import { scopesRepository } from '../store/resources/scopes-repository.ts';
import { consentsRepository } from '../store/sessions/consents-repository.ts';
import { ticketsRepository } from '../store/sessions/tickets-repository.ts';
import { tenantsRepository } from '../store/tenants/tenants-repository.ts';
import { rbacRecordReads } from '../store/token-path/rbac-records.ts';
import { loginFailuresRepository } from '../store/users/login-failures-repository.ts';
import { otpRepository } from '../store/users/otp-repository.ts';
import { otpStatusRead } from '../store/users/otp-status.ts';
import { passkeysRepository } from '../store/users/passkeys-repository.ts';
import { userIdentitiesRepository } from '../store/users/user-identities-repository.ts';
import { usersRepository } from '../store/users/users-repository.ts';
import type { RegisterDeps } from '../users/register-user.ts';
import { perRuntime } from './per-runtime.ts';
import { oauthDeps } from './token-path/token-path-records.ts';
import { forgetUser } from './token-path/user-token-records.ts';

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const userDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): UserDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    users: usersRepository(db, config.tableName, now),
    tenants: tenantsRepository(db, config.tableName, now),
    identities: userIdentitiesRepository(db, config.tableName, now),
    providers: identityProviderReads(db, config.tableName),
    multiTenant: config.multiTenant,
    hashPassword: (p) => hashPassword(p),
    otp: otpRepository(db, config.tableName, now, secretBox, { maxFailures: config.login.otpMaxFailures }),
    loginFailures: loginFailuresRepository(db, config.tableName, now, config.login),
    issuer: config.issuer,
    verifyPassword,
    secretBox,
    cursorKey: () => runtime.serviceSecret('cursor'),
    now,
    forget: (userId) => forgetUser(runtime, userId),
    managementScopesOf: (user) => userManagementScopes(user, oauthDeps(runtime)),
  };
});

/** A user's authenticators (TOTP and passkeys): the Users deps with the passkeys and the TOTP status read. */
export const authenticatorDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): AuthenticatorDeps => {
  const { db, config, now } = runtime;
  return {
    ...userDeps(runtime),
    otpStatus: otpStatusRead(db, config.tableName, now, { maxFailures: config.login.otpMaxFailures }),
    passkeys: passkeysRepository(db, config.tableName, now),
  };
});

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const userPermissionDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): UserPermissionDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    users: usersRepository(db, config.tableName, now),
    permissions: heldPermissions(db, config.tableName, now, 'user'),
    resources: resourcesRepository(db, config.tableName, now, secretBox),
    forgetUser: (userId) => forgetUser(runtime, userId),
  };
});

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const rbacDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): RbacDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    users: usersRepository(db, config.tableName, now),
    rbac: rbacRecordReads(db, config.tableName, now),
    groups: groupsRepository(db, config.tableName, now),
    resources: resourcesRepository(db, config.tableName, now, secretBox),
    scopes: scopesRepository(db, config.tableName, now),
    secretBox,
    cursorKey: () => runtime.serviceSecret('cursor'),
  };
});

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const consentDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): ConsentDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    // The token path's refresh tokens: a family revoked here is inactive in this container at once.
    consents: consentsRepository(db, config.tableName, now, oauthDeps(runtime).refreshTokens),
    users: usersRepository(db, config.tableName, now),
    cursorKey: () => runtime.serviceSecret('cursor'),
    secretBox,
  };
});

/** Self-registration (POST /identity/v1/users/register): the client check reads through the token path. */
export const registerDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): RegisterDeps => {
  const { config, db, now } = runtime;
  return {
    oauth: oauthDeps(runtime),
    users: usersRepository(db, config.tableName, now),
    tickets: ticketsRepository(db, config.tableName, now),
    email: emailSenderOf(runtime),
    issuer: config.issuer,
  };
});
