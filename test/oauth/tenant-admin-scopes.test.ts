import { describe, expect, it } from 'vitest';
import type { TokenResource } from '#shared/ports/token-path.ts';
import type { RbacRecordReads } from '#shared/rbac/effective-permissions.ts';
import { TENANT_ADMIN_SCOPES } from '#shared/rbac/tenant-admin-scopes.ts';
import { userPermissions } from '#shared/rbac/user-permissions.ts';
import { MANAGEMENT_SCOPES } from '#shared/routes/management-scopes.ts';

/**
 * The tenant-admin rule of `userPermissions` (docs/contract.md §7.7, docs/tenants.md "Tenant admins"):
 * on the management API only, from the user item's mirror alone (no record read), and only the
 * scopes the resource still names. The token path and the management API's held-scope check both
 * go through it.
 */
const TENANT = '019b0000-0000-7000-8000-0000000000a1';
const resource = (is_system: boolean, names: readonly string[]): TokenResource => ({
  id: '019b0000-0000-7000-8000-0000000000b1',
  tenant_id: TENANT,
  identifier_url: 'https://id.example.com/identity/v1/',
  signing_algorithm: 'ES256',
  signing_secret: undefined,
  token_lifetime: 3600,
  rbac_enabled: false,
  is_system,
  scope_names: Object.fromEntries(names.map((n, i) => [`019b0000-0000-7000-8000-${String(i).padStart(12, '0')}`, n])),
});

/** Counts the resolver's reads: a user with no role or group needs none. */
function reads() {
  const asked: unknown[] = [];
  const port: RbacRecordReads = {
    async read(ids) {
      asked.push(ids);
      return { roles: new Map(), groups: new Map() };
    },
  };
  return { port, asked };
}

const user = (tenant_admin?: boolean) => ({
  id: '019b0000-0000-7000-8000-0000000000c1',
  tenant_id: TENANT,
  ...(tenant_admin === undefined ? {} : { tenant_admin }),
});

describe('userPermissions for a tenant admin', () => {
  it('on the management API: every management scope but create:tenants and delete:tenants, with no record read', async () => {
    const r = reads();
    const held = await userPermissions(user(true), resource(true, MANAGEMENT_SCOPES), r.port);
    expect([...held].sort()).toEqual([...TENANT_ADMIN_SCOPES].sort());
    expect(MANAGEMENT_SCOPES.filter((s) => !held.has(s)).sort()).toEqual(['create:tenants', 'delete:tenants']);
    expect(r.asked.every((ids: any) => ids.roles.length === 0 && ids.groups.length === 0)).toBe(true);
  });

  it('only the scopes the management API still names', async () => {
    const held = await userPermissions(user(true), resource(true, ['read:users', 'create:tenants']), reads().port);
    expect([...held]).toEqual(['read:users']);
  });

  it('nothing on any other Resource, even one naming management scopes; nothing for a user without the mirror', async () => {
    expect([...(await userPermissions(user(true), resource(false, MANAGEMENT_SCOPES), reads().port))]).toEqual([]);
    expect([...(await userPermissions(user(), resource(true, MANAGEMENT_SCOPES), reads().port))]).toEqual([]);
    expect([...(await userPermissions(user(false), resource(true, MANAGEMENT_SCOPES), reads().port))]).toEqual([]);
  });
});
