import { type Lookahead, TtlCache } from '../../cache/ttl-cache.ts';
import { isStorableClientId } from '../../oauth/authenticate-client.ts';
import type { OAuthClient, OAuthDeps, TokenResource } from '../../oauth/oauth-deps.ts';
import { isUserToken, loginOf, type UserTokenWant } from '../../oauth/user-token-state.ts';
import { cacheCounter } from '../../observability/service-metrics.ts';
import { DEFAULT_TENANT_ID } from '../../records/tenant-record.ts';
import type { Runtime } from '../../runtime.ts';
import type { RevocationRef } from '../../tokens/revocation-ref.ts';
import { verifiedByResource } from '../../tokens/revocation-ref.ts';
import { getItem, getItems } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { type Key, keyString } from '../core/writes.ts';
import { authorizationCodesRepository } from '../sessions/authorization-codes-repository.ts';
import { deviceCodePolls } from '../sessions/device-code-polls.ts';
import {
  refreshTokenHash,
  refreshTokenOfItem,
  refreshTokensRepository,
  type StoredRefreshToken,
  userIdHint,
} from '../sessions/refresh-tokens-repository.ts';
import { loginFailuresRepository } from '../users/login-failures-repository.ts';
import { loginMarker } from '../users/login-marker.ts';
import { otpChecks } from '../users/otp-checks.ts';
import { userLoginWrites } from '../users/user-login-writes.ts';
import { loginHintWrite } from '../users/user-markers.ts';
import { type ClientWithGrants, clientTokenReads } from './client-token-reads.ts';
import { cachedRbacRecordReads } from './rbac-records.ts';
import { isPossibleIdentifier, resourceTokenReads } from './resource-token-reads.ts';
import type { ResourceTokenView } from './resource-token-view.ts';
import { unverifiedParts, unverifiedRef } from './unverified-token.ts';
import { rememberFamilyRevoked, userTokenReads } from './user-token-records.ts';

/**
 * Where a request decides what to fold into the one read it makes, a record about to expire
 * counts as stale (ttl-cache.ts `readAheadMs`): read now, it lasts the request; left, it could run
 * out half-way and cost the request a read call of its own.
 */
const AHEAD: Lookahead = { readAhead: true };

interface RecordCaches {
  clients: TtlCache<OAuthClient | null>;
  resources: TtlCache<TokenResource | null>;
  deps: OAuthDeps;
}

/** A verified signature is remembered this long (time claims are re-checked on every use). */
const VERIFIED_TOKEN_TTL_MS = 5 * 60 * 1000;

/**
 * The last tenant seen for a client, kept well past the record TTL: it only chooses which tenant's
 * identifier marker the token path reads together with the client. A wrong guess (the client moved
 * tenants) costs one more read, never a wrong answer.
 */
const TENANT_HINT_TTL_MS = 60 * 60 * 1000;

/** One set of caches per runtime (per container in Lambda; per local stack locally). */
const perRuntime = new WeakMap<Runtime, RecordCaches>();

/**
 * The OAuth endpoints' dependencies, built from the runtime. Client and resource records are read
 * through per-container caches (docs/tokens.md "Hot path and caching"): a warm token costs no
 * DynamoDB call, and a cold one a single BatchGetItem (`preload`). Client misses are cached too
 * (`null`), so a flood of unknown client ids costs one read per id per TTL; concurrent misses of
 * one key share one read.
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

/** A stored URL list (client-metadata-schema.ts validated it on the way in); anything else is none. */
const stringList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((u): u is string => typeof u === 'string') : []);

const resourceKey = (tenantId: string, identifierUrl: string) => `${tenantId} ${identifierUrl}`;

function caches(runtime: Runtime): RecordCaches {
  let c = perRuntime.get(runtime);
  if (c) return c;
  const { config, db, now, secretBox } = runtime;
  const clientsRepo = clientTokenReads(db, config.tableName, now);
  const resourcesRepo = resourceTokenReads(db, config.tableName, now);
  const clock = () => now().getTime();
  const countRecord = cacheCounter(runtime.metrics, 'record');
  const clients = new TtlCache<OAuthClient | null>(config.recordCacheTtlMs, 10_000, clock, countRecord);
  const resources = new TtlCache<TokenResource | null>(config.recordCacheTtlMs, 10_000, clock, countRecord);
  const tenantHints = new TtlCache<string>(TENANT_HINT_TTL_MS, 10_000, clock);
  // Users are read through the same 1 s cache as the user-token checks (store/user-token-records.ts).
  const userReads = userTokenReads(runtime);
  // A sealed secret always opens to the same plaintext, so it is opened (one KMS Decrypt in AWS)
  // once per container, not once per cache period.
  const openedSecrets = new TtlCache<string>(Number.POSITIVE_INFINITY, 1_000);

  const toClient = (found: ClientWithGrants | undefined): OAuthClient | null => {
    if (!found) return null;
    const { client } = found;
    tenantHints.set(client.id, client.tenant_id);
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
      refresh_token: client.client_metadata.refresh_token,
      id_token_lifetime: client.client_metadata.id_token.expiration_lifetime,
      redirect_uris: stringList(client.client_metadata.urls?.redirect_uris),
      is_first_party: client.is_first_party,
    };
  };
  const toResource = async (v: ResourceTokenView | undefined): Promise<TokenResource | null> => {
    if (!v) return null;
    const sealed = v.signing_algorithm === 'HS256' ? v.signing_secret : undefined;
    return {
      id: v.id,
      tenant_id: v.tenant_id,
      identifier_url: v.identifier_url,
      signing_algorithm: v.signing_algorithm,
      signing_secret: sealed ? await openedSecrets.getOrLoad(sealed, () => secretBox.open(sealed)) : undefined,
      token_lifetime: v.token_lifetime,
      rbac_enabled: v.rbac_enabled,
      is_system: v.is_system,
      scope_names: v.scope_names,
    };
  };
  /** The identifier marker of a Resource to read, unless it is cached (the management API's is the default tenant's). */
  const markerToRead = (identifier: string, tenantHint: string) => {
    const tenantId = identifier === config.managementAudience ? DEFAULT_TENANT_ID : tenantHint;
    const rKey = resourceKey(tenantId, identifier);
    return isPossibleIdentifier(identifier) && resources.get(rKey, AHEAD) === undefined
      ? { rKey, key: keys.marker('RESOURCE_ID_URL', tenantId, identifier) }
      : undefined;
  };
  // A miss is remembered like a hit (the marker read is consistent): a resource created in another
  // container is seen within the TTL, as every other change is.
  const loadResource = async (key: string, load: () => Promise<TokenResource | null>) =>
    (await resources.getOrLoad(key, load)) ?? undefined;

  const stored = refreshTokensRepository(db, config.tableName, now, config.caps.refreshFamilies);
  // A family revoked here (reuse, /revoke) turns its access tokens inactive in this container at
  // once, not after the family cache's TTL.
  const refreshTokens: typeof stored = {
    ...stored,
    async revokeFamily(familyId) {
      await stored.revokeFamily(familyId);
      rememberFamilyRevoked(runtime, familyId);
    },
  };
  /**
   * A refresh token's item and, unless cached, the user its value names (`userIdHint`): the keys to
   * read, and how to take them once read.
   */
  const refreshTokenWant = (token: string) => {
    const hint = userIdHint(token);
    const user = hint === undefined ? undefined : userReads.want(hint, undefined, AHEAD);
    const hash = refreshTokenHash(token);
    const tokenKey = keys.refreshToken(hash);
    return {
      hash,
      userKeys: user?.keys ?? [],
      keys: [tokenKey, ...(user?.keys ?? [])],
      take(found: (key: Key) => Record<string, unknown> | undefined): StoredRefreshToken | undefined {
        const stored = refreshTokenOfItem(found(tokenKey), hash);
        // Only a real token's user fills the cache: a made-up hint reads, but remembers nothing.
        if (stored?.user_id === hint) user?.take(found);
        return stored;
      },
    };
  };
  /**
   * Refresh tokens a `preload` read along with a stale client or key state, by token hash, for the
   * same request's `findRefreshToken` to take (once). An entry a request left behind (its client
   * failed authentication) is at most one record TTL old, as every cached record is; the rotation
   * transaction re-checks the token, its family and its user whatever was read.
   */
  const preloadedRefreshTokens = new TtlCache<StoredRefreshToken | null>(config.recordCacheTtlMs, 10_000, clock);
  /**
   * A client item a preload read, cached as read. Always set, never `getOrLoad`: a copy within the
   * read-ahead of its expiry is still in the cache, and `getOrLoad` would keep it, so every request
   * until it expired would read the client again.
   */
  const takeClient = async (id: string, item: Record<string, unknown> | undefined) =>
    clients.set(id, toClient(item ? await clientsRepo.clientWithGrantsOfItem(item) : undefined));
  /** The same for a Resource whose identifier marker a preload read. */
  const takeResource = async (rKey: string, marker: Record<string, unknown>) =>
    resources.set(rKey, await toResource(await resourcesRepo.tokenViewOfItem(marker)));

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
      return (await userReads.read(userId, undefined)).user;
    },
    async findLogin(tenantId, login) {
      const marker = await getItem(db, config.tableName, loginMarker(tenantId, login), now());
      if (typeof marker?.target_id !== 'string') return undefined;
      const prefix = marker.password_prefix;
      return { userId: marker.target_id, passwordPrefix: typeof prefix === 'string' ? prefix : undefined };
    },
    keys: runtime.keys,
    revocations: runtime.revocations,
    login: {
      failures: loginFailuresRepository(db, config.tableName, now, config.login),
      otp: otpChecks(db, config.tableName, now, secretBox, { maxFailures: config.login.otpMaxFailures }),
      recordLogin: userLoginWrites(db, config.tableName),
      writeLoginHint: loginHintWrite(db, config.tableName),
    },
    userTokens: userTokenReads(runtime),
    rbac: cachedRbacRecordReads(runtime),
    deviceCodes: deviceCodePolls(db, config.tableName, now),
    issuer: config.issuer,
    managementAudience: config.managementAudience,
    now,
    verifiedTokens: new TtlCache(VERIFIED_TOKEN_TTL_MS, 10_000, clock),
    metrics: runtime.metrics,
    async findClient(clientId) {
      return (await clients.getOrLoad(clientId, async () => toClient(await clientsRepo.getClientWithGrants(clientId)))) ?? undefined;
    },
    findResource(tenantId, identifierUrl) {
      return loadResource(resourceKey(tenantId, identifierUrl), async () =>
        toResource(await resourcesRepo.getTokenView(tenantId, identifierUrl)),
      );
    },
    cachedResource: (tenantId, identifierUrl) => resources.get(resourceKey(tenantId, identifierUrl)) ?? undefined,

    /**
     * Issue 3 item 7, "at most one DynamoDB read per token": whatever of the client, the
     * identifier marker of the audience the grant's preload names (with its alternate spellings
     * when it is read), and the signing-key states this container does not hold fresh is read in
     * ONE consistent BatchGetItem, keyed from the request alone (docs/data-model.md pattern 1). A
     * marker is the one of the client's tenant as last seen (the default tenant for a client never
     * seen, and always for the management API); if that guess is wrong, `findResource` reads the
     * right one after authentication.
     *
     * This runs before authentication, so it only fills caches and never remembers an absent
     * marker: made-up audiences cost one read each (as made-up client ids always did) and cannot
     * crowd real resources out of the cache. A client already known not to exist reads nothing.
     */
    async preload(clientId, { audience, audienceAlternates = [], refreshToken }) {
      const cached = clients.get(clientId, AHEAD);
      if (cached === null) return;
      const tenantHint = cached?.tenant_id ?? tenantHints.get(clientId) ?? DEFAULT_TENANT_ID;
      const main = audience === undefined ? undefined : markerToRead(audience, tenantHint);
      const markers = main ? [main, ...audienceAlternates.flatMap((a) => markerToRead(a, tenantHint) ?? [])] : [];
      const keyStates = runtime.keys.stateFeed?.wanted(AHEAD) ?? [];
      // Only the keys stale: the key store reads them itself, one call either way; unless a refresh
      // token is to be read too, which then comes in the same call.
      if (cached && !markers.length && !(refreshToken !== undefined && keyStates.length)) return;
      // The refresh grant's token and its user, read now since a read happens anyway.
      const refresh = refreshToken === undefined ? undefined : refreshTokenWant(refreshToken);
      // The secret box's data key, while this container has not loaded it: an HS256 Resource's
      // secret opens with it (the item only; it is unwrapped when first used).
      const dataKey = markers.length ? (runtime.dataKeyFeed?.wanted() ?? []) : [];
      const clientKey = keys.client(clientId);
      const wanted: Key[] = [
        ...(cached ? [] : [clientKey]),
        ...markers.map((m) => m.key),
        ...keyStates,
        ...dataKey,
        ...(refresh?.keys ?? []),
      ];
      const readAt = now();
      const found = await getItems(db, config.tableName, wanted, readAt); // a storage error is a 503, never a token
      if (refresh) preloadedRefreshTokens.set(refresh.hash, refresh.take((k) => found.get(keyString(k))) ?? null);
      if (keyStates.length)
        runtime.keys.stateFeed?.offer(
          keyStates.map((k) => found.get(keyString(k))).filter((i) => i !== undefined),
          readAt,
        );
      if (dataKey.length) runtime.dataKeyFeed?.offer((k) => found.get(keyString(k)));
      await Promise.all([
        !cached && takeClient(clientId, found.get(keyString(clientKey))),
        ...markers.map(({ rKey, key }) => {
          const marker = found.get(keyString(key));
          return marker && takeResource(rKey, marker);
        }),
      ]);
    },

    async preloadIntrospection(callerClientId, tokens) {
      // Warm (keys fresh, caller known): nothing worth folding, and the tokens are not even parsed;
      // a new token's revocation entry is then one GetItem of its own, as before (and a user
      // token's user and family one BatchGetItem, when not cached).
      const keysFresh = (runtime.keys.stateFeed?.wanted(AHEAD).length ?? 0) === 0;
      if (keysFresh && (callerClientId === undefined || clients.get(callerClientId, AHEAD) !== undefined)) return;
      await preloadTokens(callerClientId, tokens, false);
    },
    preloadBearer: (token) => preloadTokens(undefined, [token], true),
  };

  /**
   * One consistent BatchGetItem of what checking these tokens will look up and this container does
   * not hold: the caller's client, each token's client, revocation entries, and for a user token
   * its user and login family (user-token-records.ts), the signing-key states, and the secret
   * box's data key for HS256 tokens; with `audiences`, also the Resource each token names by `aud`
   * (in its `tenant_id`), unless that is the management API or `{issuer}/userinfo`, which are no
   * stored Resource's. Chosen from unverified payloads: it only fills caches, and never remembers
   * an absent marker (as `preload`).
   */
  async function preloadTokens(callerClientId: string | undefined, tokens: readonly string[], audiences: boolean): Promise<void> {
    const clientIds = new Set(callerClientId !== undefined && isStorableClientId(callerClientId) ? [callerClientId] : []);
    const refs: RevocationRef[] = [];
    const userWants: UserTokenWant[] = [];
    const markers: { rKey: string; key: Key }[] = [];
    for (const t of tokens) {
      const parts = unverifiedParts(t);
      const ref = parts && unverifiedRef(parts);
      if (!parts || !ref) continue;
      clientIds.add(ref.clientId);
      refs.push(ref);
      const login = isUserToken(parts.payload) ? loginOf(parts.payload) : undefined;
      if (login) userWants.push(deps.userTokens.want(login.userId, login.sid, AHEAD));
      const { aud, tenant_id: tenantId } = parts.payload;
      if (audiences && typeof aud === 'string' && aud !== `${config.issuer}/userinfo` && aud !== config.managementAudience) {
        const marker = markerToRead(aud, typeof tenantId === 'string' ? tenantId : DEFAULT_TENANT_ID);
        if (marker) markers.push(marker);
      }
    }
    const wantedClients = [...clientIds].filter((id) => clients.get(id, AHEAD) === undefined);
    const feed = runtime.revocations.feed;
    const wantedRevocations = feed ? refs.map((ref) => ({ ref, keys: feed.wanted(ref) })).filter((r) => r.keys.length > 0) : [];
    const wantedUsers = userWants.filter((w) => w.keys.length > 0);
    if (!wantedClients.length && !wantedRevocations.length && !wantedUsers.length && !markers.length) return; // the key store reads for itself if it must
    const keyStates = runtime.keys.stateFeed?.wanted(AHEAD) ?? [];
    // An HS256 token's Resource secret opens with the secret box's data key (once per container).
    const dataKey = refs.some(verifiedByResource) ? (runtime.dataKeyFeed?.wanted() ?? []) : [];
    const readAt = now();
    const found = await getItems(
      db,
      config.tableName,
      [
        ...wantedClients.map(keys.client),
        ...wantedRevocations.flatMap((r) => r.keys),
        ...wantedUsers.flatMap((w) => w.keys),
        ...markers.map((m) => m.key),
        ...keyStates,
        ...dataKey,
      ],
      readAt,
    );
    if (keyStates.length)
      runtime.keys.stateFeed?.offer(
        keyStates.map((k) => found.get(keyString(k))).filter((i) => i !== undefined),
        readAt,
      );
    if (dataKey.length) runtime.dataKeyFeed?.offer((k) => found.get(keyString(k)));
    for (const { ref } of wantedRevocations) feed!.offer(ref, (key) => found.get(keyString(key)));
    for (const w of wantedUsers) w.take((key) => found.get(keyString(key)));
    await Promise.all([
      ...markers.map(({ rKey, key }) => {
        const marker = found.get(keyString(key));
        return marker && takeResource(rKey, marker);
      }),
      ...wantedClients.map((id) => takeClient(id, found.get(keyString(keys.client(id))))),
    ]);
  }
  c = { clients, resources, deps };
  perRuntime.set(runtime, c);
  return c;
}
