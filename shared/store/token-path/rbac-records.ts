import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { cacheCounter } from '../../observability/service-metrics.ts';
import type { RbacGroup, RbacRecordReads, RbacRecords, RbacRole } from '../../rbac/effective-permissions.ts';
import type { IdSet } from '../../records/group-record.ts';
import type { Runtime } from '../../runtime.ts';
import { TtlCache } from '../../ttl-cache.ts';
import { getItems } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { type Key, keyString } from '../core/writes.ts';

type Item = Record<string, unknown>;

/**
 * The role and group records the RBAC resolver asks for (shared/rbac/effective-permissions.ts),
 * trimmed to what it reads: a role's `token_grants`, a group's `role_ids` and `ancestor_ids`.
 * Each `read` is ONE consistent BatchGetItem of the ids not held (getItems splits above 100 keys;
 * a user in 5 groups nested 10 deep asks for at most 5 + 45 groups in one batch).
 */
export function rbacRecordReads(db: DynamoDBDocumentClient, tableName: string, now: () => Date): RbacRecordReads {
  return { read: (ids) => readRecords(db, tableName, now, ids) };
}

interface Caches {
  roles: TtlCache<RbacRole | null>;
  groups: TtlCache<RbacGroup | null>;
  reads: RbacRecordReads;
}

/** One set of caches per runtime (per container in Lambda), as the token path's client records. */
const perRuntime = new WeakMap<Runtime, Caches>();

/**
 * A role or group changed in this container (its permissions, its roles, its nesting, its
 * deletion): this container's copies of every role and group go, so its next token and its next
 * management-API scope check resolve from the table at once (other containers: within the TTL).
 * Everything goes, not the changed records alone: a nesting change rewrites the ancestors of a
 * whole subtree, and changes are rare next to tokens.
 */
export function forgetRbacRecords(runtime: Runtime): void {
  const c = perRuntime.get(runtime);
  c?.roles.clear();
  c?.groups.clear();
}

/**
 * The same through per-container caches of `RECORD_CACHE_TTL_SECONDS` (1 s by default), misses
 * included: the token path and the management API's scope check (held-scopes.ts). A warm
 * container reads nothing; a removed membership, role, permission or nesting link is seen within
 * the TTL (each change rewrites one record the resolver reads: the user's `group_ids`/`role_ids`/
 * `token_grants`, a group's `role_ids`/`ancestor_ids`, a role's `token_grants`; docs/rbac.md).
 */
export function cachedRbacRecordReads(runtime: Runtime): RbacRecordReads {
  const c = perRuntime.get(runtime);
  if (c) return c.reads;
  const { config, db, now } = runtime;
  const clock = () => now().getTime();
  const roles = new TtlCache<RbacRole | null>(config.recordCacheTtlMs, 10_000, clock);
  const groups = new TtlCache<RbacGroup | null>(config.recordCacheTtlMs, 10_000, clock);
  const countLookup = cacheCounter(runtime.metrics, 'rbac');
  const reads: RbacRecordReads = {
    async read(ids) {
      // What is cached is captured now, so an entry expiring during the read is never taken for a missing record.
      const held = {
        roles: new Map(ids.roles.map((id) => [id, roles.get(id)])),
        groups: new Map(ids.groups.map((id) => [id, groups.get(id)])),
      };
      const missing = {
        roles: [...held.roles].filter(([, r]) => r === undefined).map(([id]) => id),
        groups: [...held.groups].filter(([, g]) => g === undefined).map(([id]) => id),
      };
      const found = missing.roles.length || missing.groups.length ? await readRecords(db, config.tableName, now, missing) : undefined;
      const out = { roles: new Map<string, RbacRole>(), groups: new Map<string, RbacGroup>() };
      // One hit or miss counted per record asked for.
      for (const [id, cached] of held.roles) {
        countLookup(cached !== undefined);
        const r = cached === undefined ? (found?.roles.get(id) ?? null) : cached;
        if (cached === undefined) roles.set(id, r);
        if (r) out.roles.set(id, r);
      }
      for (const [id, cached] of held.groups) {
        countLookup(cached !== undefined);
        const g = cached === undefined ? (found?.groups.get(id) ?? null) : cached;
        if (cached === undefined) groups.set(id, g);
        if (g) out.groups.set(id, g);
      }
      return out;
    },
  };
  perRuntime.set(runtime, { roles, groups, reads });
  return reads;
}

async function readRecords(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  ids: { roles: readonly string[]; groups: readonly string[] },
): Promise<RbacRecords> {
  const roleKeys = ids.roles.filter(isId).map((id) => [id, keys.role(id)] as const);
  const groupKeys = ids.groups.filter(isId).map((id) => [id, keys.group(id)] as const);
  const wanted: Key[] = [...roleKeys, ...groupKeys].map(([, k]) => k);
  const found = wanted.length ? await getItems(db, tableName, wanted, now()) : new Map<string, Item>();
  const roles = new Map<string, RbacRole>();
  const groups = new Map<string, RbacGroup>();
  for (const [id, key] of roleKeys) {
    const item = found.get(keyString(key));
    if (item?.type === 'Role')
      roles.set(id, { id, tenant_id: String(item.tenant_id), token_grants: item.token_grants as RbacRole['token_grants'] });
  }
  for (const [id, key] of groupKeys) {
    const item = found.get(keyString(key));
    if (item?.type === 'Group')
      groups.set(id, {
        id,
        tenant_id: String(item.tenant_id),
        role_ids: item.role_ids as IdSet | undefined,
        ancestor_ids: item.ancestor_ids as IdSet | undefined,
      });
  }
  return { roles, groups };
}

/**
 * Ids in the mirrors are UUIDs the store wrote; anything else (a hand-edited item) is not read:
 * a key part must never carry a `#` into another item's key.
 */
const isId = (id: string): boolean => /^[0-9a-fA-F-]{36}$/.test(id);
