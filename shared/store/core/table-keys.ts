/**
 * Every key of the single table is built here and nowhere else (docs/design.md §3.6). The access
 * patterns they serve: docs/data-model.md.
 */
export const keys = {
  /** Before revocations were bound (schema_version 1): one entry per jti, read until they expire. */
  revokedTokenUnbound: (jti: string) => ({ PK: `REVOKED#${jti}`, SK: 'REVOKED' }),
  /** A revocation bound to what verified the token (`verifierDigest`, revocation-ref.ts). */
  revokedToken: (jti: string, verifierDigest: string) => ({ PK: `REVOKED#${jti}`, SK: `BOUND#${verifierDigest}` }),
  revokedTokenPartition: (jti: string) => `REVOKED#${jti}`,
  /** The revocation log: every revocation, SK `{revoked_at}#{jti}#{verifier digest}` (time order). */
  revocationLog: 'REVOCATION_LOG',
  signingKey: (kid: string) => ({ PK: 'SIGNING_KEYS', SK: `KEY#${kid}` }),
  signingKeysPartition: 'SIGNING_KEYS',
  /** One per algorithm: which kid is next/current/previous; every rotation is a conditional write of it. */
  signingKeyState: (alg: string) => ({ PK: 'SIGNING_KEYS', SK: `ALG#${alg}` }),
  serviceSecret: (name: string) => ({ PK: 'SERVICE_SECRETS', SK: `SECRET#${name}` }),

  // Tenants and per-tenant collections.
  tenant: (tenantId: string) => ({ PK: `TENANT#${tenantId}`, SK: 'TENANT' }),
  /** GSI1PK of the tenants collection. */
  tenantsCollection: 'TENANTS',
  tenantsCounter: { PK: 'TENANTS', SK: 'COUNT' },
  /** GSI1PK of one tenant's records of a kind (`CLIENTS`, `RESOURCES`, ...); GSI1SK is the id. */
  collection: (tenantId: string, kind: CollectionKind) => `TENANT#${tenantId}#${kind}`,
  /** The `count` of one tenant's collection, so `total_count` is one GetItem. */
  collectionCounter: (tenantId: string, kind: CollectionKind) => ({ PK: `TENANT#${tenantId}`, SK: `COUNT#${kind}` }),

  /** Uniqueness markers; the value is the last part so it may contain `#`. */
  marker: (kind: MarkerKind, ...parts: string[]) => ({ PK: `UNIQUE#${kind}#${parts.join('#')}`, SK: 'UNIQUE' }),

  // Clients: the record, its resource links and its permissions share one partition, so the
  // token endpoint reads them all with one Query by client_id.
  client: (clientId: string) => ({ PK: `CLIENT#${clientId}`, SK: 'CLIENT' }),
  clientPartition: (clientId: string) => `CLIENT#${clientId}`,
  clientLink: (clientId: string, resourceId: string) => ({ PK: `CLIENT#${clientId}`, SK: `RESOURCE#${resourceId}` }),
  clientLinkPrefix: 'RESOURCE#',
  clientPermission: (clientId: string, resourceId: string, scopeId: string) => ({
    PK: `CLIENT#${clientId}`,
    SK: `PERMISSION#${resourceId}#${scopeId}`,
  }),
  permissionPrefix: 'PERMISSION#',
  permissionsOnResourcePrefix: (resourceId: string) => `PERMISSION#${resourceId}#`,
  /** GSI2PK of a link: the clients of a resource (GSI2SK = client id). */
  resourceClients: (resourceId: string) => `RESOURCE#${resourceId}#CLIENTS`,
  /** GSI2PK of a permission of any holder (client, role, user): GSI2SK = `CLIENT#{id}` etc. */
  scopeHolders: (scopeId: string) => `SCOPE#${scopeId}#HOLDERS`,
  scopeHolder: (holder: 'CLIENT' | 'ROLE' | 'USER', holderId: string) => `${holder}#${holderId}`,

  // Resources: the record, its scopes and its scope-name markers share one partition.
  resource: (resourceId: string) => ({ PK: `RESOURCE#${resourceId}`, SK: 'RESOURCE' }),
  resourcePartition: (resourceId: string) => `RESOURCE#${resourceId}`,
  scope: (resourceId: string, scopeId: string) => ({ PK: `RESOURCE#${resourceId}`, SK: `SCOPE#${scopeId}` }),
  scopePrefix: 'SCOPE#',
  scopeNameMarker: (resourceId: string, scopeName: string) => ({ PK: `RESOURCE#${resourceId}`, SK: `UNIQUE#SCOPE_NAME#${scopeName}` }),
  scopeNameMarkerPrefix: 'UNIQUE#SCOPE_NAME#',
  // Users (shared/records/user-record.ts). The record and the user's own small items share one
  // partition, so a delete finds them with one Query.
  user: (userId: string) => ({ PK: `USER#${userId}`, SK: 'USER' }),
  userPartition: (userId: string) => `USER#${userId}`,
  /**
   * The lockout count of a login that names no user in its tenant, by the SHA-256 of the marker
   * its lookup reads (store/login-failures-repository.ts); `ttl` set. The login itself is not stored.
   */
  unknownLoginFailures: (markerHash: string) => ({ PK: `LOGIN_FAILURES#${markerHash}`, SK: 'LOGIN_FAILURES' }),
  /** The user's TOTP authenticator (sealed secret, last accepted step, its own failure count). */
  userOtp: (userId: string) => ({ PK: `USER#${userId}`, SK: 'OTP' }),
  /** A passkey of the user by the SHA-256 of its credential id (base64url), so a sign-in finds it with one GetItem. */
  userPasskey: (userId: string, credentialIdHash: string) => ({ PK: `USER#${userId}`, SK: `PASSKEY#${credentialIdHash}` }),
  passkeyPrefix: 'PASSKEY#',
  /**
   * A refresh token by the SHA-256 of its value (docs/contract.md §7.1: stored only as a hash), with its
   * user, client, family, scopes and state. GSI1PK `userRefreshTokens(user)` / GSI1SK the hash lists
   * a user's refresh tokens (bounded deletes when the user goes).
   */
  refreshToken: (tokenHash: string) => ({ PK: `REFRESH#${tokenHash}`, SK: 'REFRESH' }),
  /** A refresh-token family (one login): `revoked` once a rotated member is presented again. */
  refreshFamily: (familyId: string) => ({ PK: `REFRESH_FAMILY#${familyId}`, SK: 'FAMILY' }),
  /** GSI1PK of a user's refresh tokens. */
  userRefreshTokens: (userId: string) => `USER#${userId}#REFRESH_TOKENS`,
  /** A one-time ticket (email verification, password change) by the SHA-256 of its value; `ttl` set. */
  ticket: (ticketHash: string) => ({ PK: `TICKET#${ticketHash}`, SK: 'TICKET' }),

  // Roles (shared/records/role-record.ts). The record, its members and its permissions share one
  // partition; a member is also listed from the user through GSI2.
  role: (roleId: string) => ({ PK: `ROLE#${roleId}`, SK: 'ROLE' }),
  rolePartition: (roleId: string) => `ROLE#${roleId}`,
  roleMember: (roleId: string, userId: string) => ({ PK: `ROLE#${roleId}`, SK: `MEMBER#${userId}` }),
  roleMemberPrefix: 'MEMBER#',
  /** GSI2PK of a role member link: the roles of a user (GSI2SK = role id). */
  userRoles: (userId: string) => `USER#${userId}#ROLES`,
  rolePermission: (roleId: string, resourceId: string, scopeId: string) => ({
    PK: `ROLE#${roleId}`,
    SK: `PERMISSION#${resourceId}#${scopeId}`,
  }),
  /** A user's direct permission (holder kind `user`), in the user's partition. */
  userPermission: (userId: string, resourceId: string, scopeId: string) => ({
    PK: `USER#${userId}`,
    SK: `PERMISSION#${resourceId}#${scopeId}`,
  }),
  /** A user's account at an external provider (docs/management-users.md "User identities"); unique through the `IDENTITY` marker. */
  userIdentity: (userId: string, identityId: string) => ({ PK: `USER#${userId}`, SK: `IDENTITY#${identityId}` }),
  identityPrefix: 'IDENTITY#',

  // Groups (shared/records/group-record.ts, docs/management-groups.md). The record and its links
  // share one partition; each link is also listed from its far end through GSI2.
  group: (groupId: string) => ({ PK: `GROUP#${groupId}`, SK: 'GROUP' }),
  groupPartition: (groupId: string) => `GROUP#${groupId}`,
  groupMember: (groupId: string, userId: string) => ({ PK: `GROUP#${groupId}`, SK: `MEMBER#${userId}` }),
  groupMemberPrefix: 'MEMBER#',
  /** GSI2PK of a user's group-member links (GSI2SK = group id). */
  userGroups: (userId: string) => `USER#${userId}#GROUPS`,
  groupRole: (groupId: string, roleId: string) => ({ PK: `GROUP#${groupId}`, SK: `ROLE#${roleId}` }),
  groupRolePrefix: 'ROLE#',
  /** GSI2PK of a role's group links (GSI2SK = group id). */
  roleGroups: (roleId: string) => `ROLE#${roleId}#GROUPS`,
  groupChild: (parentId: string, childId: string) => ({ PK: `GROUP#${parentId}`, SK: `CHILD#${childId}` }),
  groupChildPrefix: 'CHILD#',
  /** GSI2PK of a group's parent links (GSI2SK = parent id). */
  groupParents: (childId: string) => `GROUP#${childId}#PARENTS`,
  /** The tenant's group graph version: every nesting change is conditioned on it and raises it. */
  groupGraph: (tenantId: string) => ({ PK: `GROUP_GRAPH#${tenantId}`, SK: 'GRAPH' }),

  // Tenant admins (docs/tenants.md "Tenant admins"): in their tenant's partition, mirrored on the user's `tenant_admin`.
  tenantAdmin: (tenantId: string, userId: string) => ({ PK: `TENANT#${tenantId}`, SK: `ADMIN#${userId}` }),
  tenantAdminPrefix: 'ADMIN#',
  /** GSI2PK of the tenants a user administers (GSI2SK = tenant id). */
  userAdminOf: (userId: string) => `USER#${userId}#ADMIN_OF`,

  // Identity providers (shared/records/identity-provider-record.ts, docs/federation.md "Identity providers"):
  // in their tenant's partition, so a read by id names the tenant and never finds another tenant's.
  identityProvider: (tenantId: string, providerId: string) => ({ PK: `TENANT#${tenantId}`, SK: `IDP#${providerId}` }),
  /** GSI2PK of a tenant's providers with one issuer (GSI2SK = provider id): token exchange finds them by `iss`. */
  identityProviderIssuer: (tenantId: string, issuer: string) => `IDP_ISSUER#${tenantId}#${issuer}`,

  // Security events (shared/records/event-record.ts, docs/events.md): one partition per tenant in
  // time order, and through GSI2 the events of one user.
  /** A tenant's event partition: SK `{occurred_at}#{id}`, newest last; `ttl` at the stage's retention. */
  tenantEvents: (tenantId: string) => `EVENTS#${tenantId}`,
  event: (tenantId: string, occurredAt: string, id: string) => ({ PK: `EVENTS#${tenantId}`, SK: `${occurredAt}#${id}` }),
  /** GSI2PK of a user's events (GSI2SK = the event's SK). */
  userEvents: (userId: string) => `USER#${userId}#EVENTS`,

  // Browser flows (docs/browser-flows.md).
  // pages: sessions, interactions, user grants.
  /** A browser session by the SHA-256 of its cookie value (the value itself is never stored); `ttl`. */
  session: (cookieHash: string) => ({ PK: `SESSION#${cookieHash}`, SK: 'SESSION' }),
  /** GSI2PK of a user's sessions (GSI2SK = session id), so blocking or deleting the user ends them. */
  userSessions: (userId: string) => `USER#${userId}#SESSIONS`,
  /** A login/consent interaction between `/authorize` (or `/device`) and the pages; `ttl`. */
  interaction: (id: string) => ({ PK: `INTERACTION#${id}`, SK: 'INTERACTION' }),
  /** A pushed authorization request (RFC 9126) by the SHA-256 of its `request_uri` (the value itself is never stored); `ttl`. */
  pushedRequest: (requestUriHash: string) => ({ PK: `PAR#${requestUriHash}`, SK: 'PAR' }),
  /** A sign-in sent to an external provider, by the SHA-256 of its `state` (docs/federation.md "Federated login"); `ttl`. */
  federatedLogin: (stateHash: string) => ({ PK: `FEDERATION#${stateHash}`, SK: 'FEDERATION' }),
  /** A User Grant (consent) of a user to a client for a Resource (`userinfo` when none). */
  consent: (userId: string, clientId: string, resourceId: string | null) => ({
    PK: `USER#${userId}`,
    SK: `GRANT#${clientId}#${resourceId ?? 'userinfo'}`,
  }),
  consentPrefix: 'GRANT#',
  /** GSI2PK of the grants given to a client (GSI2SK = user id). */
  clientGrants: (clientId: string) => `CLIENT#${clientId}#GRANTS`,
  // device: device authorizations, user codes, user-code attempts.
  /** A device authorization (RFC 8628) by the SHA-256 of its device code; `ttl` set (store/device-codes-repository.ts). */
  deviceCode: (deviceCodeHash: string) => ({ PK: `DEVICE#${deviceCodeHash}`, SK: 'DEVICE' }),
  /** The user code of a device authorization (normalised: 8 letters, no dash) → `device_hash`; `ttl` set. */
  deviceUserCode: (userCode: string) => ({ PK: `USER_CODE#${userCode}`, SK: 'USER_CODE' }),
  /** Wrong user codes from one source address in one window (RFC 8628 §5.1; store/user-code-attempts-repository.ts); `ttl` set. */
  userCodeAttempts: (sourceHash: string, window: number) => ({ PK: `USER_CODE_ATTEMPTS#${sourceHash}`, SK: `WINDOW#${window}` }),

  /**
   * A `jti` seen once, by kind and SHA-256 of issuer and jti (store/sessions/one-time-ids-repository.ts):
   * client assertions and DPoP proofs (docs/client-authentication.md); `ttl` at the JWT's end.
   */
  oneTimeId: (kind: string, hash: string) => ({ PK: `JTI#${kind}#${hash}`, SK: 'JTI' }),

  /** "The Default Client's secret has been shown once" (shared/store/clients/credentials-reveal.ts). */
  defaultClientSecretShown: { PK: 'BOOTSTRAP', SK: 'DEFAULT_CLIENT_SECRET_SHOWN' },
  /** Never written: health reads it to see that the table answers (store/table-probe.ts). */
  healthProbe: { PK: 'HEALTH', SK: 'HEALTH' },
  /** A one-off data migration that ran to completion (e.g. `secret-box-dk1`): later bootstraps skip it. */
  migrationDone: (name: string) => ({ PK: 'BOOTSTRAP', SK: `MIGRATION#${name}` }),

  // Browser flows (docs/browser-flows.md).
  /** An authorization code by the SHA-256 of its value (authorize branch); `ttl` set, `used_at` once redeemed. */
  authorizationCode: (codeHash: string) => ({ PK: `CODE#${codeHash}`, SK: 'CODE' }),
} as const;

export type CollectionKind = 'CLIENTS' | 'RESOURCES' | 'USERS' | 'ROLES' | 'GROUPS' | 'IDENTITY_PROVIDERS';
export type MarkerKind =
  | 'RESOURCE_ID_URL'
  /** A Resource's identifier_url across every tenant (`UNIQUE#RESOURCE_ID_URL_STAGE#{url}`): docs/management-resources.md. */
  | 'RESOURCE_ID_URL_STAGE'
  | 'TENANT_NAME'
  | 'DEFAULT_CLIENT'
  | 'USER_EMAIL'
  | 'USER_NAME'
  | 'USER_PHONE'
  | 'ROLE_NAME'
  | 'GROUP_NAME'
  /** A provider_name within its tenant (`UNIQUE#IDP_NAME#{t}#{name}`). */
  | 'IDP_NAME'
  | 'IDENTITY';
