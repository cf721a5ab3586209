import { randomUUID } from 'node:crypto';
import { generateClientSecret } from '#shared/crypto/client-secret.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { clientPermissionsRepository } from '#shared/store/clients/client-permissions-repository.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { forgetClient } from '#shared/wiring/token-path/token-path-records.ts';
import { basicAuth, startTestService, type TestService } from '../service/local-service.ts';
import { type CallOptions, managementCaller, type Reply } from '../service/management-api.ts';

export type { CallOptions, Reply };

export { DEFAULT_TENANT_ID };

/** An id nobody has. */
export const UNKNOWN_ID = '019b0000-0000-7000-8000-00000000beef';

/**
 * One local service (fresh table) and helpers for the Resources tests. Everything under test goes
 * over HTTP; fixtures the Resources API does not own (clients, their permissions) are made with the
 * repositories on the service's own runtime, and the token cache is told, as the endpoints do.
 */
export async function resourcesFixture(env: Record<string, string> = {}) {
  const svc: TestService = await startTestService({ env });
  const admin = await svc.managementToken();
  const { runtime } = svc.stack;
  const clientsRepo = clientsRepository(runtime.db, runtime.config.tableName, runtime.now, runtime.secretBox);
  const permissionsRepo = clientPermissionsRepository(runtime.db, runtime.config.tableName, runtime.now);

  const call = managementCaller(svc.url, admin);
  const expectStatus = (res: Reply, status: number, what: string) => {
    if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  let n = 0;
  const fx = {
    svc,
    admin,
    call,
    /** A unique identifier_url. */
    audience: () => `https://api-${++n}-${randomUUID()}.example.com/`,
    /** POST /resources, expecting 201. */
    async createResource(body: Record<string, any> = {}, options: Omit<CallOptions, 'body'> = {}) {
      const { resource_metadata, ...rest } = body;
      const full = {
        resource_type: 'api',
        resource_name: `API ${++n}`,
        ...rest,
        resource_metadata: { identifier_url: fx.audience(), ...resource_metadata },
      };
      return expectStatus(await call('POST', '/resources', { ...options, body: full }), 201, 'create resource') as Record<string, any>;
    },
    /** POST /resources/{id}/scopes, expecting 201. */
    async createScope(resourceId: string, scope_name: string, scope_description?: string) {
      const body = { scope_name, ...(scope_description !== undefined ? { scope_description } : {}) };
      return expectStatus(await call('POST', `/resources/${resourceId}/scopes`, { body }), 201, 'create scope') as Record<string, any>;
    },
    /** GET /resources/{id}, expecting 200. */
    async getResource(id: string, query = '') {
      return expectStatus(await call('GET', `/resources/${id}${query}`), 200, 'get resource') as Record<string, any>;
    },
    /** A confidential client (repository), `client_credentials` allowed; returns its id and secret. */
    async createClient(options: { tenant_id?: string; is_global?: boolean; client_name?: string } = {}) {
      const secret = generateClientSecret();
      const client = await clientsRepo.create(
        {
          tenant_id: options.tenant_id ?? DEFAULT_TENANT_ID,
          client_name: options.client_name ?? `client ${++n}`,
          is_global: options.is_global ?? true,
          client_metadata: { grant_types: ['client_credentials'] },
          client_secret: secret,
        },
        svc.clientId,
      );
      return { id: client.id, secret, tenant_id: client.tenant_id };
    },
    getClient: (id: string) => clientsRepo.get(id),
    /** Grants scopes (by id) of an authorized resource to a client (repository; the Clients half owns the endpoint). */
    async grant(clientId: string, resourceId: string, scopeIds: string[]) {
      await permissionsRepo.grant(clientId, [{ resource_id: resourceId, scopes: scopeIds }], svc.clientId);
      forgetClient(runtime, clientId);
    },
    permissionsOf: (clientId: string) => permissionsRepo.listForClient(clientId),
    /** POST /resources/{id}/clients, expecting 204. */
    async authorize(resourceId: string, clientIds: string[]) {
      expectStatus(await call('POST', `/resources/${resourceId}/clients`, { body: { clients: clientIds } }), 204, 'authorize');
    },
    /** POST /token client_credentials with Basic authentication. */
    async token(clientId: string, secret: string, audience: string, scope?: string): Promise<Reply> {
      const res = await fetch(`${svc.url}/token`, {
        method: 'POST',
        headers: { authorization: basicAuth(clientId, secret), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', audience, ...(scope ? { scope } : {}) }),
      });
      return { status: res.status, headers: res.headers, body: await res.json() };
    },
    /** The payload of a JWT, unverified (the verifying tests use jose). */
    claimsOf(jwt: string): Record<string, any> {
      return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
    },
    /** The management API resource made at bootstrap. */
    async systemResource() {
      const list = await call('GET', `/resources?q=${encodeURIComponent('(resource_name="Management API")')}`);
      const found = (list.body.items as any[]).find((r) => r.resource_metadata.is_system);
      if (!found) throw new Error('no system resource');
      return found as Record<string, any>;
    },
    stop: () => svc.stop(),
  };
  return fx;
}

export type ResourcesFixture = Awaited<ReturnType<typeof resourcesFixture>>;
