/** Every scope of the management API (docs/contract.md §6), granted to the Default Client at bootstrap. */
export const MANAGEMENT_SCOPES: readonly string[] = [
  ...['clients', 'resources', 'tenants', 'identity_providers', 'roles', 'users', 'groups'].flatMap((r) =>
    ['read', 'create', 'update', 'delete'].map((a) => `${a}:${r}`),
  ),
  'read:client_keys',
  'update:client_keys',
  'read:grants',
  'delete:grants',
  'create:tickets',
  'read:events',
];
