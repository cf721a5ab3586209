import { randomUUID } from 'node:crypto';
import { SYSTEM_ACTOR_ID } from '#shared/records/common.ts';
import type { ResourceRecord } from '#shared/records/resource-record.ts';
import type { ScopeRecord } from '#shared/records/scope-record.ts';
import { DEFAULT_TENANT_ID as DEFAULT_TENANT } from '#shared/records/tenant-record.ts';
import { resourcesRepository } from '#shared/store/resources/resources-repository.ts';
import { scopesRepository } from '#shared/store/resources/scopes-repository.ts';
import { forgetResources } from '#shared/wiring/token-path/token-path-records.ts';
import { basicAuth, startTestService, type TestService } from '../service/local-service.ts';
import { type CallOptions, createTenant, managementCaller, type Reply } from '../service/management-api.ts';

export type { CallOptions, Reply };

export { DEFAULT_TENANT };

/**
 * One local service (fresh table) with an all-scopes management token of the Default Client and
 * helpers for the Clients tests. Resources and scopes are made with the repositories (the
 * Resources endpoints are another area's), then the resource cache is dropped so /token sees them.
 */
export async function clientsFixture(env: Record<string, string> = {}) {
  // The service's clock (docs/design.md §3.2): real time plus what a test moved it on by, so a test of
  // an expiry moves time instead of sleeping past it.
  let offsetMs = 0;
  const clock = {
    now: () => new Date(Date.now() + offsetMs),
    advance: (ms: number) => {
      offsetMs += ms;
    },
  };
  const svc: TestService = await startTestService({ env, now: clock.now });
  const admin = await svc.managementToken();
  const { runtime } = svc.stack;
  const repo = resourcesRepository(runtime.db, runtime.config.tableName, runtime.now, runtime.secretBox);
  const scopesRepo = scopesRepository(runtime.db, runtime.config.tableName, runtime.now);

  const call = managementCaller(svc.url, admin);

  let n = 0;
  const fx = {
    svc,
    clock,
    admin,
    call,
    /** POST /clients, expecting 201. */
    async createClient(body: Record<string, unknown> = {}, options: Omit<CallOptions, 'body'> = {}) {
      const res = await call('POST', '/clients', { ...options, body: { client_name: `client ${++n}`, ...body } });
      if (res.status !== 201) throw new Error(`create client: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Record<string, any>;
    },
    /** A resource with scopes, straight through the repository. */
    async createResource(scopeNames: readonly string[] = ['read', 'write'], extra: { tenant_id?: string; resource_name?: string } = {}) {
      const i = ++n;
      const resource: ResourceRecord = await repo.create(
        {
          tenant_id: extra.tenant_id ?? DEFAULT_TENANT,
          resource_type: 'api',
          resource_name: extra.resource_name ?? `API ${i}`,
          resource_metadata: { identifier_url: `https://api-${i}-${randomUUID()}.example.com/` },
        },
        SYSTEM_ACTOR_ID,
        scopeNames.map((scope_name) => ({ scope_name })),
      );
      forgetResources(runtime);
      const scopes: ScopeRecord[] = await scopesRepo.list(resource.id);
      const scope = (name: string) => scopes.find((s) => s.scope_name === name)!.id;
      return { resource, id: resource.id, audience: resource.resource_metadata.identifier_url, scopes, scope };
    },
    /** A tenant record, written directly into the table (no management token or HTTP call needed). */
    createTenant: (name?: string) => createTenant(runtime, name),
    /** POST /token client_credentials with Basic authentication. */
    async token(clientId: string, secret: string, audience: string, scope?: string): Promise<Reply> {
      const res = await fetch(`${svc.url}/token`, {
        method: 'POST',
        headers: { authorization: basicAuth(clientId, secret), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', audience, ...(scope ? { scope } : {}) }),
      });
      return { status: res.status, headers: res.headers, body: await res.json() };
    },
    /** The `scope` claim of an access token (no verification: /token just made it). */
    scopesOf(accessToken: string): string[] {
      const payload = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')) as { scope?: string };
      return (payload.scope ?? '').split(' ').filter(Boolean).sort();
    },
    stop: () => svc.stop(),
  };
  return fx;
}

export type ClientsFixture = Awaited<ReturnType<typeof clientsFixture>>;

export const UNKNOWN_ID = '019b0000-0000-7000-8000-00000000dead';

/** Every key of a Client response without `expand` or `fields` (spec §2.2, docs/contract.md §6). */
export const CLIENT_KEYS = [
  'aggregations',
  'app_metadata',
  'client_metadata',
  'client_name',
  'client_secret_expires_at',
  'client_type',
  'created_at',
  'created_by',
  'id',
  'is_first_party',
  'is_global',
  'is_public',
  'tenant_id',
  'updated_at',
  'updated_by',
].sort();
