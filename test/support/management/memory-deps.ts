import { randomBytes } from 'node:crypto';
import { hashClientSecret } from '#shared/crypto/client-secret.ts';
import { conflict, notFound } from '#shared/errors.ts';
import { arraySource } from '#shared/lists/index.ts';
import type { ClientDeps } from '#shared/management/clients/client-deps.ts';
import { type ManagementAccess, managementAccess } from '#shared/management/kit/access.ts';
import type { ResourceDeps } from '#shared/management/resources/resource-deps.ts';
import type { ClientPermission, ClientResourceLink, PermissionRequest } from '#shared/records/client-link-records.ts';
import type { ClientPatch, ClientRecord, NewClient } from '#shared/records/client-record.ts';
import type { NewResource, ResourcePatch, ResourceRecord } from '#shared/records/resource-record.ts';
import type { NewScope, ScopePatch, ScopeRecord } from '#shared/records/scope-record.ts';
import { DEFAULT_TENANT_ID, type TenantRecord } from '#shared/records/tenant-record.ts';
import { MANAGEMENT_SCOPES } from '#shared/routes/management-scopes.ts';
import { newClientRecord } from '#shared/store/clients/client-defaults.ts';
import { type DeepPartial, mergePatch } from '#shared/store/core/merge-patch.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import { newResourceRecord, sealSigningSecret } from '#shared/store/resources/resource-defaults.ts';
import { aesSecretBox } from '../keys/aes-secret-box.ts';

/**
 * The fast use-case tier: the `*Deps` interfaces of the management groups backed
 * by maps in memory, so a use case runs in microseconds without DynamoDB Local. The fakes keep the
 * records' shapes (the store's own record builders and merge) and the rules a use case relies on
 * (404 unknown, 409 existing link, counts), not the store's transactions, races or keys: those stay
 * with the DynamoDB Local tests (test/store, test/management). Secrets are sealed with real crypto.
 */
export interface MemoryWorld {
  clients: Map<string, ClientRecord>;
  resources: Map<string, ResourceRecord>;
  scopes: Map<string, ScopeRecord>;
  links: ClientResourceLink[];
  permissions: ClientPermission[];
  tenants: Map<string, TenantRecord>;
  /** Ids whose token-path cache entry was dropped, in order. */
  forgotten: string[];
  clientDeps: ClientDeps;
  resourceDeps: ResourceDeps;
}

const ACTOR = 'test-actor';
const at = () => new Date().toISOString();

/** The access of a caller (`sub` = ACTOR) in `tenantId`: global and holding the key scopes by default. */
export function accessOf(
  options: { tenantId?: string; isGlobal?: boolean; readsKeys?: boolean; rotatesKeys?: boolean } = {},
): ManagementAccess {
  const scopes = new Set<string>([
    ...((options.readsKeys ?? true) ? ['read:client_keys'] : []),
    ...((options.rotatesKeys ?? true) ? ['update:client_keys'] : []),
  ]);
  const ctx = {
    actor: ACTOR,
    tenantId: options.tenantId ?? DEFAULT_TENANT_ID,
    isGlobal: options.isGlobal ?? true,
    scopes: new Set([...MANAGEMENT_SCOPES]),
  };
  return managementAccess(ctx, { claims: { sub: ACTOR, client_id: ACTOR }, scopes } as never);
}

export function memoryWorld(options: { multiTenant?: boolean; managementAudience?: string } = {}): MemoryWorld {
  const box = aesSecretBox();
  const w = {
    clients: new Map<string, ClientRecord>(),
    resources: new Map<string, ResourceRecord>(),
    scopes: new Map<string, ScopeRecord>(),
    links: [] as ClientResourceLink[],
    permissions: [] as ClientPermission[],
    tenants: new Map<string, TenantRecord>([[DEFAULT_TENANT_ID, { id: DEFAULT_TENANT_ID } as TenantRecord]]),
    forgotten: [] as string[],
  };
  const mustClient = (id: string) => w.clients.get(id) ?? fail(notFound('Client not found.'));
  const mustResource = (id: string) => w.resources.get(id) ?? fail(notFound('Resource not found.'));
  const bump = <T extends { aggregations: Record<string, number> }>(r: T, field: string, d: number) => {
    r.aggregations[field] = (r.aggregations[field] ?? 0) + d;
  };

  const clients = {
    get: async (id: string) => w.clients.get(id),
    async create(input: NewClient, actor: string) {
      const id = input.id ?? uuidv7();
      const secret = input.is_public ? undefined : (input.client_secret ?? 'generated');
      const record = newClientRecord(
        id,
        input,
        actor,
        at(),
        secret ? { hash: hashClientSecret(secret), sealed: await box.seal(secret) } : undefined,
      );
      w.clients.set(id, record);
      return record;
    },
    async update(
      id: string,
      patch: ClientPatch,
      actor: string,
      options: { validate?: (latest: ClientRecord, merged: ClientRecord) => void } = {},
    ) {
      const current = mustClient(id);
      const next = {
        ...mergePatch<ClientRecord>(current, patch as DeepPartial<ClientRecord>),
        updated_by: actor,
        updated_at: at(),
        version: current.version + 1,
      };
      options.validate?.(current, next);
      w.clients.set(id, next);
      return next;
    },
    async changeSecret(id: string, secret: string, actor: string, options: { expiresAt?: string | null } = {}) {
      const next = {
        ...mustClient(id),
        secret_hash: hashClientSecret(secret),
        secret_sealed: await box.seal(secret),
        updated_by: actor,
        updated_at: at(),
      };
      if (options.expiresAt !== undefined) next.client_secret_expires_at = options.expiresAt;
      w.clients.set(id, next);
      return next;
    },
    async delete(id: string) {
      mustClient(id);
      w.clients.delete(id);
      w.links = w.links.filter((l) => l.client_id !== id);
      w.permissions = w.permissions.filter((p) => p.client_id !== id);
    },
    collection: (tenantId: string) =>
      arraySource(
        `memory|${tenantId}|clients`,
        [...w.clients.values()].filter((c) => c.tenant_id === tenantId),
      ),
  };

  const links = {
    async authorize(clientId: string, resourceIds: readonly string[], actor: string) {
      const client = mustClient(clientId);
      const ids = [...new Set(resourceIds)];
      for (const id of ids) mustResource(id);
      for (const id of ids)
        if (w.links.some((l) => l.client_id === clientId && l.resource_id === id))
          throw conflict('body.resources: a resource is already authorized to this client.');
      for (const id of ids) {
        const t = at();
        w.links.push({
          id: uuidv7(),
          tenant_id: client.tenant_id,
          client_id: clientId,
          resource_id: id,
          created_by: actor,
          created_at: t,
          updated_by: actor,
          updated_at: t,
        });
        bump(client, 'resources', 1);
        bump(mustResource(id), 'clients', 1);
      }
    },
    async revoke(clientId: string, resourceIds: readonly string[]) {
      for (const id of new Set(resourceIds)) await links.revokeClients(id, [clientId]);
    },
    async authorizeClients(resourceId: string, clientIds: readonly string[], actor: string) {
      for (const id of new Set(clientIds)) await links.authorize(id, [resourceId], actor);
    },
    async revokeClients(resourceId: string, clientIds: readonly string[]) {
      for (const clientId of new Set(clientIds)) {
        if (!w.links.some((l) => l.client_id === clientId && l.resource_id === resourceId))
          throw notFound('body.clients: a client is not authorized to this resource.');
        w.links = w.links.filter((l) => !(l.client_id === clientId && l.resource_id === resourceId));
        const gone = w.permissions.filter((p) => p.client_id === clientId && p.resource_id === resourceId);
        w.permissions = w.permissions.filter((p) => !gone.includes(p));
        bump(mustClient(clientId), 'resources', -1);
        bump(mustClient(clientId), 'permissions', -gone.length);
        bump(mustResource(resourceId), 'clients', -1);
      }
    },
    listForClient: async (clientId: string) => {
      mustClient(clientId);
      return w.links.filter((l) => l.client_id === clientId);
    },
    listForResource: async (resourceId: string) => {
      mustResource(resourceId);
      return w.links.filter((l) => l.resource_id === resourceId);
    },
  };

  const permissions = {
    async grant(clientId: string, requests: readonly PermissionRequest[], actor: string) {
      const client = mustClient(clientId);
      for (const r of requests) {
        if (!w.links.some((l) => l.client_id === clientId && l.resource_id === r.resource_id))
          throw conflict('body.permissions: a resource is not authorized to this client; authorize it first.');
        for (const s of r.scopes) {
          const t = at();
          w.permissions.push({
            id: uuidv7(),
            tenant_id: client.tenant_id,
            client_id: clientId,
            resource_id: r.resource_id,
            scope_id: s,
            created_by: actor,
            created_at: t,
            updated_by: actor,
            updated_at: t,
          });
          bump(client, 'permissions', 1);
        }
      }
    },
    async revoke(clientId: string, requests: readonly PermissionRequest[]) {
      for (const r of requests)
        for (const s of r.scopes)
          w.permissions = w.permissions.filter((p) => !(p.client_id === clientId && p.resource_id === r.resource_id && p.scope_id === s));
    },
    listForClient: async (clientId: string) => {
      mustClient(clientId);
      return w.permissions.filter((p) => p.client_id === clientId);
    },
  };

  const resources = {
    get: async (id: string) => w.resources.get(id),
    async create(input: NewResource, actor: string) {
      const record = await newResourceRecord(input.id ?? uuidv7(), input, actor, at(), box);
      w.resources.set(record.id, record);
      return record;
    },
    async update(id: string, patch: ResourcePatch, actor: string) {
      const current = mustResource(id);
      const { signing_secret: plaintext, ...metadata } = patch.resource_metadata ?? {};
      const merged = mergePatch<ResourceRecord>(current, { ...patch, resource_metadata: metadata } as DeepPartial<ResourceRecord>);
      const next = {
        ...merged,
        resource_metadata: await sealSigningSecret(merged.resource_metadata, plaintext, box),
        updated_by: actor,
        updated_date: at(),
      };
      w.resources.set(id, next);
      return next;
    },
    async delete(id: string) {
      mustResource(id);
      w.resources.delete(id);
      w.links = w.links.filter((l) => l.resource_id !== id);
    },
    collection: (tenantId: string) =>
      arraySource(
        `memory|${tenantId}|resources`,
        [...w.resources.values()].filter((r) => r.tenant_id === tenantId),
      ),
  };

  const scopes = {
    get: async (resourceId: string, scopeId: string) => {
      const s = w.scopes.get(scopeId);
      return s?.resource_id === resourceId ? s : undefined;
    },
    list: async (resourceId: string) => [...w.scopes.values()].filter((s) => s.resource_id === resourceId),
    async create(resourceId: string, input: NewScope, actor: string) {
      const resource = mustResource(resourceId);
      if ([...w.scopes.values()].some((s) => s.resource_id === resourceId && s.scope_name === input.scope_name))
        throw conflict('body.scope_name: the resource already has a scope with this scope_name.');
      const t = at();
      const scope: ScopeRecord = {
        id: uuidv7(),
        tenant_id: resource.tenant_id,
        resource_id: resourceId,
        ...input,
        version: 1,
        created_by: actor,
        created_at: t,
        updated_by: actor,
        updated_at: t,
      };
      w.scopes.set(scope.id, scope);
      resource.scope_names[scope.id] = scope.scope_name;
      bump(resource, 'scopes', 1);
      return scope;
    },
    async update(resourceId: string, scopeId: string, patch: ScopePatch, actor: string) {
      const current = (await scopes.get(resourceId, scopeId)) ?? fail(notFound('Scope not found.'));
      const next = { ...current, ...patch, updated_by: actor, updated_at: at() } as ScopeRecord;
      w.scopes.set(scopeId, next);
      return next;
    },
    async delete(resourceId: string, scopeId: string) {
      (await scopes.get(resourceId, scopeId)) ?? fail(notFound('Scope not found.'));
      w.scopes.delete(scopeId);
      bump(mustResource(resourceId), 'scopes', -1);
    },
  };

  const tenants = { get: async (id: string) => w.tenants.get(id) };
  const cursorKey = async () => KEY;
  const clientDeps = {
    clients,
    links,
    permissions,
    resources,
    scopes,
    tenants,
    readPartition: async (clientId: string) => {
      const client = w.clients.get(clientId);
      if (!client) return undefined;
      return {
        client,
        links: new Map(w.links.filter((l) => l.client_id === clientId).map((l) => [l.resource_id, l])),
        permissions: w.permissions.filter((p) => p.client_id === clientId),
      };
    },
    secretBox: box,
    generateSecret: () => randomBytes(32).toString('base64url'),
    multiTenant: options.multiTenant ?? false,
    cursorKey,
    now: () => new Date(),
    forget: (id: string) => void w.forgotten.push(id),
    // No management API in memory: a client holds no management scope (the rule is tested over HTTP).
    managementScopesOf: async () => new Set<string>(),
    managementApi: async () => undefined,
  } as unknown as ClientDeps;
  const resourceDeps = {
    resources,
    scopes,
    links,
    clients,
    tenants,
    multiTenant: options.multiTenant ?? false,
    managementAudience: options.managementAudience ?? 'https://management.example/identity/v1',
    secretBox: box,
    cursorKey,
    forgetResources: () => void w.forgotten.push('resources'),
    forgetClient: (id: string) => void w.forgotten.push(id),
  } as unknown as ResourceDeps;
  return Object.assign(w, { clientDeps, resourceDeps });
}

const KEY = randomBytes(32);

function fail(err: Error): never {
  throw err;
}
