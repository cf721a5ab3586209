/**
 * `type` and `schema_version` are stored on every item (docs/design.md §3.6), so a migration can find
 * and upgrade items of one kind and shape without guessing from keys.
 */
export const SCHEMA_VERSION = 1;

export type EntityType =
  | 'Tenant'
  | 'Client'
  | 'ClientResourceLink'
  | 'ClientPermission'
  | 'Resource'
  | 'Scope'
  | 'User'
  | 'Role'
  | 'RoleMember'
  | 'RolePermission'
  | 'UserPermission'
  | 'UserIdentity'
  | 'UserOtp'
  | 'UserPasskey'
  | 'UnknownLoginFailures'
  | 'RefreshToken'
  | 'RefreshFamily'
  | 'Ticket'
  | 'AuthorizationCode'
  | 'DeviceCode'
  | 'DeviceUserCode'
  | 'UserCodeAttempts'
  | 'Session'
  | 'Interaction'
  | 'PushedAuthorizationRequest'
  | 'FederatedLogin'
  | 'UserGrant'
  | 'Group'
  | 'GroupMember'
  | 'GroupRole'
  | 'NestedGroup'
  | 'GroupGraph'
  | 'TenantAdmin'
  | 'IdentityProvider'
  | 'Event'
  | 'UniqueMarker'
  | 'Counter';

export const entity = (type: EntityType) => ({ type, schema_version: SCHEMA_VERSION });

/** Storage-only attributes that never appear in a record handed to a caller. */
const STORAGE_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'type', 'schema_version', 'ttl'];

/** An item as its record: the same attributes minus keys and entity metadata. */
export function toRecord<T>(item: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...item };
  for (const a of STORAGE_ATTRIBUTES) delete out[a];
  return out as T;
}
