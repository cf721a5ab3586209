import { conflict, notFound } from '#shared/errors.ts';
import { arraySource } from '#shared/lists/index.ts';
import type { ManagementAccess } from '#shared/management/kit/access.ts';
import type { UserDeps } from '#shared/management/users/user-deps.ts';
import { DEFAULT_TENANT_ID, type TenantRecord } from '#shared/records/tenant-record.ts';
import { USER_LOGIN_KINDS, type UserLoginKind, type UserRecord, userMarkerValue } from '#shared/records/user-record.ts';
import { type DeepPartial, mergePatch } from '#shared/store/core/merge-patch.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import type { AttemptAdmission } from '#shared/store/users/login-failures-repository.ts';
import { newUserRecord } from '#shared/store/users/user-defaults.ts';
import type { UsersRepository } from '#shared/store/users/users-repository.ts';
import { aesSecretBox } from '../keys/aes-secret-box.ts';

/**
 * UserDeps in memory (the use-case tier, like memory-deps.ts for Clients and Resources): the
 * store's record builder and merge, uniqueness by the same marker values, a visible "hash"
 * (`hashed:<password>`, so a test sees what was hashed), a lockout counter. Transactions, races
 * and keys stay with the DynamoDB Local tests (test/store/users-repository.test.ts).
 */
export function memoryUsers(options: { lockoutFailures?: number } = {}) {
  const users = new Map<string, UserRecord>();
  const failures = new Map<string, number>();
  const hashed: string[] = [];
  const markerKey = (tenant: string, kind: UserLoginKind, value: string) => `${tenant}|${kind}|${userMarkerValue(kind, value)}`;
  const owner = (tenant: string, kind: UserLoginKind, value: string) =>
    [...users.values()].find(
      (u) => u.tenant_id === tenant && u[kind] !== undefined && markerKey(tenant, kind, u[kind]!) === markerKey(tenant, kind, value),
    )?.id;
  const assertFree = (u: UserRecord) => {
    for (const kind of USER_LOGIN_KINDS) {
      const value = u[kind];
      const o = value === undefined ? undefined : owner(u.tenant_id, kind, value);
      if (o !== undefined && o !== u.id) throw conflict(`body.${kind}: a user with this ${kind} already exists.`);
    }
  };
  const must = (id: string) =>
    users.get(id) ??
    (() => {
      throw notFound('User not found.');
    })();

  const repo: Partial<UsersRepository> = {
    get: async (id) => users.get(id),
    async create(input, actor) {
      const record = newUserRecord(input.id ?? uuidv7(), input, actor, new Date().toISOString());
      assertFree(record);
      users.set(record.id, record);
      return record;
    },
    findIdByLogin: async (tenant, kind, value) => owner(tenant, kind, value),
    async update(id, patch, actor, opts = {}) {
      const current = must(id);
      const next = {
        ...mergePatch<UserRecord>(current, patch as DeepPartial<UserRecord>),
        updated_by: actor,
        version: current.version + 1,
      };
      for (const [k, v] of Object.entries(next)) if (v === null && k !== 'last_login') delete (next as Record<string, unknown>)[k];
      await opts.validate?.(current, next);
      assertFree(next);
      users.set(id, next);
      return next;
    },
    async delete(id, accept = () => true) {
      const u = users.get(id);
      if (!u || !accept(u)) return false;
      users.delete(id);
      return true;
    },
    async setBlocked(id, blocked, at, actor) {
      const next = { ...must(id), blocked, ...(blocked ? { tokens_revoked_at: at.toISOString() } : {}), updated_by: actor ?? 'x' };
      users.set(id, next);
      return next;
    },
    async setPasswordHash(id, hash, at) {
      const next = { ...must(id), password_hash: hash, tokens_revoked_at: at.toISOString() };
      users.set(id, next);
      return next;
    },
    collection: (tenant) =>
      arraySource(
        `memory|${tenant}|users`,
        [...users.values()].filter((u) => u.tenant_id === tenant),
      ),
  };

  const deps: UserDeps = {
    users: repo as UsersRepository,
    tenants: { get: async (id) => (id === DEFAULT_TENANT_ID ? ({ id } as TenantRecord) : undefined) },
    // No federation here: users have no identities (test/management/users/identities.test.ts has them).
    identities: { list: async () => [] },
    providers: { byId: async () => undefined },
    multiTenant: false,
    async hashPassword(p) {
      hashed.push(p);
      return `hashed:${p}`;
    },
    verifyPassword: async (p, h) => h === `hashed:${p}`,
    otp: { enroll: async () => 'JBSWY3DPEHPK3PXP', remove: async () => true },
    // No RBAC here: a user holds no management scope (the real rule is tested over HTTP, users-takeover).
    managementScopesOf: async () => new Set<string>(),
    loginFailures: {
      async admit(id): Promise<AttemptAdmission> {
        const user = typeof id === 'string' ? users.get(id) : undefined;
        if (!user) return { admitted: true, user: undefined, locksIfFails: false, liftsLockout: false };
        const n = failures.get(user.id) ?? 0;
        if (n >= (options.lockoutFailures ?? 10)) return { admitted: false, retryAfterSeconds: 900 };
        failures.set(user.id, n + 1);
        return { admitted: true, user, locksIfFails: n + 1 >= (options.lockoutFailures ?? 10), liftsLockout: false };
      },
      reset: async (id) => {
        failures.delete(id);
      },
    },
    issuer: 'https://id.example',
    secretBox: aesSecretBox(),
    cursorKey: async () => Buffer.alloc(32, 7),
    now: () => new Date(),
    forget: () => undefined,
  };
  return { deps, users, hashed, failures };
}

/** The access of a caller with `scopes`; `actor` is its `sub` (a user id for a user token). */
export function userAccess(actor: string, scopes: readonly string[], tenantId = DEFAULT_TENANT_ID): ManagementAccess {
  return { ctx: { actor, tenantId, isGlobal: false, scopes: new Set(scopes) }, readsKeys: false, rotatesKeys: false };
}
