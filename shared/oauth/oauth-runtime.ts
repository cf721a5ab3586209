import { TtlCache } from '../cache/ttl-cache.ts';
import type { Runtime } from '../runtime.ts';
import { clientsRepository } from '../store/clients-repository.ts';
import { resourcesRepository } from '../store/resources-repository.ts';
import type { OAuthClient, OAuthDeps, TokenResource } from './oauth-deps.ts';

interface RecordCaches {
  clients: TtlCache<OAuthClient | null>;
  resources: TtlCache<TokenResource | null>;
  deps: OAuthDeps;
}

/** A verified signature is remembered this long (time claims are re-checked on every use). */
const VERIFIED_TOKEN_TTL_MS = 5 * 60 * 1000;

/** One set of caches per runtime (per container in Lambda; per local stack locally). */
const perRuntime = new WeakMap<Runtime, RecordCaches>();

/**
 * The OAuth endpoints' dependencies, built from the runtime. Client and resource records are read
 * through per-container caches (docs/tokens.md "Hot path and caching"): a warm token costs no
 * DynamoDB call. Client misses are cached too (`null`), so a flood of unknown client ids costs one
 * read per id per TTL; concurrent misses of one key share one read.
 */
export function oauthDeps(runtime: Runtime): OAuthDeps {
  return caches(runtime).deps;
}

/** Management changes call this so the container that made a change sees it at once. */
export function forgetClient(runtime: Runtime, clientId: string): void {
  caches(runtime).clients.delete(clientId);
}

export function forgetResources(runtime: Runtime): void {
  caches(runtime).resources.clear();
}

function caches(runtime: Runtime): RecordCaches {
  let c = perRuntime.get(runtime);
  if (c) return c;
  const { config, db, now, secretBox } = runtime;
  const clientsRepo = clientsRepository(db, config.tableName, now, secretBox);
  const resourcesRepo = resourcesRepository(db, config.tableName, now, secretBox);
  const clients = new TtlCache<OAuthClient | null>(config.recordCacheTtlMs);
  const resources = new TtlCache<TokenResource | null>(config.recordCacheTtlMs);

  const deps: OAuthDeps = {
    keys: runtime.keys,
    revocations: runtime.revocations,
    issuer: config.issuer,
    managementAudience: config.managementAudience,
    now,
    verifiedTokens: new TtlCache(VERIFIED_TOKEN_TTL_MS, 10_000),
    async findClient(clientId) {
      const hit = await clients.getOrLoad(clientId, async () => {
        const found = await clientsRepo.getClientWithGrants(clientId);
        if (!found) return null;
        const { client } = found;
        return {
          id: client.id,
          tenant_id: client.tenant_id,
          is_public: client.is_public,
          is_global: client.is_global,
          grant_types: client.client_metadata.grant_types,
          secret_hash: client.secret_hash,
          client_secret_expires_at: client.client_secret_expires_at,
          resources: found.resources,
          grants: found.grants,
        };
      });
      return hit ?? undefined;
    },
    async findResource(tenantId, identifierUrl) {
      const hit = await resources.getOrLoad(`${tenantId} ${identifierUrl}`, async () => {
        const r = await resourcesRepo.getResourceByIdentifier(tenantId, identifierUrl);
        if (!r) return null;
        const m = r.resource_metadata;
        return {
          id: r.id,
          tenant_id: r.tenant_id,
          identifier_url: m.identifier_url,
          signing_algorithm: m.signing_algorithm,
          // Unsealed once per cache period, not per token (a KMS Decrypt in AWS).
          signing_secret: m.signing_algorithm === 'HS256' && m.signing_secret ? await secretBox.open(m.signing_secret) : undefined,
          token_lifetime: m.token_lifetime,
          rbac_enabled: m.rbac_enabled,
          is_system: m.is_system,
          scope_names: r.scope_names,
        };
      });
      // A miss is not remembered: the resource may have just been created (GSI2 is eventually
      // consistent), and an unknown audience is a client error that costs one read.
      if (hit === null) resources.delete(`${tenantId} ${identifierUrl}`);
      return hit ?? undefined;
    },
  };
  c = { clients, resources, deps };
  perRuntime.set(runtime, c);
  return c;
}
