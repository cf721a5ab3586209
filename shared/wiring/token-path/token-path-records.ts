import { SECRET_BOX_DATA_KEY } from '../../keys/secret-box.ts';
import type { DpopNonces } from '../../oauth/dpop/dpop-nonces.ts';
import type { OAuthDeps, TokenResource } from '../../oauth/oauth-deps.ts';
import { idTokenAlgsOf } from '../../oauth/user-tokens/id-token-algs.ts';
import type { Runtime } from '../../runtime.ts';
import { getItem, getItems } from '../../store/core/reads/read-items.ts';
import { keys } from '../../store/core/table-keys.ts';
import { keyString } from '../../store/core/writes.ts';
import { authorizationCodesRepository } from '../../store/sessions/authorization-codes-repository.ts';
import { deviceCodePolls } from '../../store/sessions/device-code-polls.ts';
import { oneTimeIdsRepository } from '../../store/sessions/one-time-ids-repository.ts';
import {
  refreshTokenHash,
  refreshTokenOfItem,
  refreshTokensRepository,
  userIdHint,
} from '../../store/sessions/refresh-tokens-repository.ts';
import { clientTokenReads } from '../../store/token-path/client-token-reads.ts';
import { cachedRbacRecordReads } from '../../store/token-path/rbac-records.ts';
import { resourceTokenReads } from '../../store/token-path/resource-token-reads.ts';
import { loginFailuresRepository } from '../../store/users/login-failures-repository.ts';
import { loginMarker } from '../../store/users/login-marker.ts';
import { otpChecks } from '../../store/users/otp-checks.ts';
import { userLoginWrites } from '../../store/users/user-login-writes.ts';
import { loginHintWrite } from '../../store/users/user-markers.ts';
import { TtlCache } from '../../ttl-cache.ts';
import { eventLogOf } from '../events.ts';
import { batchReadPlanner, cachedClient, cachedResource, type RefreshTokenWant } from './batch-read-planner.ts';
import { AHEAD, resourceKey, type TokenPathCaches, tokenPathCaches, VERIFIED_TOKEN_TTL_MS } from './record-caches.ts';
import { rememberFamilyRevoked, userTokenReads } from './user-token-records.ts';

interface RecordCaches {
  caches: TokenPathCaches;
  deps: OAuthDeps;
}

/** One set of caches per runtime (per container in Lambda; per local stack locally). */
const perRuntime = new WeakMap<Runtime, RecordCaches>();

/**
 * The OAuth endpoints' dependencies, built from the runtime. Client and resource records are read
 * through per-container caches (record-caches.ts, docs/tokens.md "Hot path and caching"): a warm
 * token costs no DynamoDB call, and a cold one a single BatchGetItem (batch-read-planner.ts).
 * Concurrent misses of one key share one read.
 */
export function oauthDeps(runtime: Runtime): OAuthDeps {
  return records(runtime).deps;
}

/** Management changes call this so the container that made a change sees it at once. */
export function forgetClient(runtime: Runtime, clientId: string): void {
  records(runtime).caches.clients.delete(clientId);
}

export function forgetResources(runtime: Runtime): void {
  records(runtime).caches.resources.clear();
}

function records(runtime: Runtime): RecordCaches {
  const c = perRuntime.get(runtime);
  if (c) return c;
  const { config, db, now, secretBox } = runtime;
  const clientsRepo = clientTokenReads(db, config.tableName, now);
  const resourcesRepo = resourceTokenReads(db, config.tableName, now);
  const caches = tokenPathCaches(runtime);
  const { clients, resources, preloadedRefreshTokens } = caches;
  // Users are read through the same 1 s cache as the user-token checks (user-token-records.ts).
  const userTokens = userTokenReads(runtime);
  // A miss is remembered like a hit (the marker read is consistent): a resource created in another
  // container is seen within the TTL, as every other change is.
  const loadResource = async (key: string, load: () => Promise<TokenResource | null>) =>
    (await resources.getOrLoad(key, load)) ?? undefined;

  const stored = refreshTokensRepository(db, config.tableName, now, config.caps.refreshFamilies);
  // A family revoked here (reuse, /revoke) turns its access tokens inactive in this container at
  // once, not after the family cache's TTL.
  const refreshTokens: typeof stored = {
    ...stored,
    async revokeFamily(familyId, events) {
      const revoked = await stored.revokeFamily(familyId, events);
      rememberFamilyRevoked(runtime, familyId);
      return revoked;
    },
  };
  /** A refresh token's item and, unless cached, the user its value names (`userIdHint`). */
  const refreshTokenWant = (token: string): RefreshTokenWant => {
    const hint = userIdHint(token);
    const user = hint === undefined ? undefined : userTokens.want(hint, undefined, AHEAD);
    const hash = refreshTokenHash(token);
    const tokenKey = keys.refreshToken(hash);
    return {
      hash,
      userKeys: user?.keys ?? [],
      keys: [tokenKey, ...(user?.keys ?? [])],
      take(found) {
        const stored = refreshTokenOfItem(found(tokenKey), hash);
        // Only a real token's user fills the cache: a made-up hint reads, but remembers nothing.
        if (stored?.user_id === hint) user?.take(found);
        return stored;
      },
    };
  };

  const deps: OAuthDeps = {
    refreshTokens,
    authorizationCodes: authorizationCodesRepository(db, config.tableName, now),
    async findRefreshToken(token) {
      const want = refreshTokenWant(token);
      const preloaded = preloadedRefreshTokens.get(want.hash);
      if (preloaded !== undefined) {
        preloadedRefreshTokens.delete(want.hash);
        return preloaded ?? undefined;
      }
      if (!want.userKeys.length) return refreshTokens.find(token);
      const found = await getItems(db, config.tableName, want.keys, now());
      return want.take((key) => found.get(keyString(key)));
    },
    async findUser(userId) {
      return (await userTokens.read(userId, undefined)).user;
    },
    async findLogin(tenantId, login) {
      const marker = await getItem(db, config.tableName, loginMarker(tenantId, login), now());
      if (typeof marker?.target_id !== 'string') return undefined;
      const prefix = marker.password_prefix;
      return { userId: marker.target_id, passwordPrefix: typeof prefix === 'string' ? prefix : undefined };
    },
    keys: runtime.keys,
    idTokenAlgs: idTokenAlgsOf(config.keyMode),
    revocations: runtime.revocations,
    login: {
      failures: loginFailuresRepository(db, config.tableName, now, config.login),
      otp: otpChecks(db, config.tableName, now, secretBox, { maxFailures: config.login.otpMaxFailures }),
      recordLogin: userLoginWrites(db, config.tableName),
      writeLoginHint: loginHintWrite(db, config.tableName),
    },
    userTokens,
    rbac: cachedRbacRecordReads(runtime),
    deviceCodes: deviceCodePolls(db, config.tableName, now),
    oneTimeIds: oneTimeIdsRepository(db, config.tableName),
    // The nonce key derives from the secret box's data key: one per stage, opened once per container.
    // Loaded with the first DPoP request: a Bearer token loads none of its code.
    dpopNonces: lazyNonces(async () =>
      (await import('../../oauth/dpop/dpop-nonces.ts')).dpopNonces(() => runtime.serviceSecret(SECRET_BOX_DATA_KEY), now),
    ),
    // Loaded with the first client assertion: a secret-based token loads none of its code (client-keys.ts).
    clientAssertions: async () => (await import('../client-keys.ts')).clientAssertions(runtime),
    issuer: config.issuer,
    managementAudience: config.managementAudience,
    now,
    verifiedTokens: new TtlCache(VERIFIED_TOKEN_TTL_MS, 10_000, () => now().getTime()),
    metrics: runtime.metrics,
    events: eventLogOf(runtime),
    async findClient(clientId) {
      return (
        (await clients.getOrLoad(clientId, async () => cachedClient(caches, await clientsRepo.getClientWithGrants(clientId)))) ?? undefined
      );
    },
    findResource(tenantId, identifierUrl) {
      return loadResource(resourceKey(tenantId, identifierUrl), async () =>
        cachedResource(runtime, caches, await resourcesRepo.getTokenView(tenantId, identifierUrl)),
      );
    },
    cachedResource: (tenantId, identifierUrl) => resources.get(resourceKey(tenantId, identifierUrl)) ?? undefined,
    ...batchReadPlanner({
      runtime,
      caches,
      clientWithGrantsOfItem: (item) => clientsRepo.clientWithGrantsOfItem(item),
      tokenViewOfItem: (marker) => resourcesRepo.tokenViewOfItem(marker),
      refreshTokenWant,
      userTokens,
    }),
  };
  const made = { caches, deps };
  perRuntime.set(runtime, made);
  return made;
}

/** Nonces whose module is imported, and whose key is derived, at their first use (built once). */
function lazyNonces(load: () => Promise<DpopNonces>): DpopNonces {
  let nonces: Promise<DpopNonces> | undefined;
  const get = () => (nonces ??= load());
  return {
    current: async () => (await get()).current(),
    accepts: async (nonce) => (await get()).accepts(nonce),
  };
}
