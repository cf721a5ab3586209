import { isStorableClientId } from '../../oauth/authenticate-client.ts';
import type { OAuthDeps } from '../../oauth/oauth-deps.ts';
import { isUserToken, loginOf, type UserTokenWant } from '../../oauth/user-token-state.ts';
import type { RevocationRef } from '../../records/revocation-ref.ts';
import { verifiedByResource } from '../../records/revocation-ref.ts';
import { DEFAULT_TENANT_ID } from '../../records/tenant-record.ts';
import type { Runtime } from '../../runtime.ts';
import { getItems } from '../../store/core/reads/read-items.ts';
import { keys } from '../../store/core/table-keys.ts';
import { type Key, keyString } from '../../store/core/writes.ts';
import type { StoredRefreshToken } from '../../store/sessions/refresh-tokens-repository.ts';
import type { ClientWithGrants } from '../../store/token-path/client-token-reads.ts';
import { isPossibleIdentifier } from '../../store/token-path/resource-token-reads.ts';
import type { ResourceTokenView } from '../../store/token-path/resource-token-view.ts';
import { AHEAD, resourceKey, type TokenPathCaches } from './record-caches.ts';
import { clientOfRecord, resourceOfView } from './token-views.ts';
import { unverifiedParts, unverifiedRef } from './unverified-token.ts';

/** A refresh token's item and, unless cached, its user: the keys to read, and how to take them once read. */
export interface RefreshTokenWant {
  hash: string;
  userKeys: Key[];
  keys: Key[];
  take(found: (key: Key) => Record<string, unknown> | undefined): StoredRefreshToken | undefined;
}

/** What the planner reads through besides the caches. */
export interface PlannerSources {
  runtime: Runtime;
  caches: TokenPathCaches;
  clientWithGrantsOfItem(item: Record<string, unknown>): Promise<ClientWithGrants | undefined>;
  tokenViewOfItem(marker: Record<string, unknown>): Promise<ResourceTokenView | undefined>;
  refreshTokenWant(token: string): RefreshTokenWant;
  userTokens: OAuthDeps['userTokens'];
}

/** A client as the token path caches it; remembers its tenant for the next `preload`'s marker guess. */
export function cachedClient(caches: TokenPathCaches, found: ClientWithGrants | undefined) {
  if (!found) return null;
  caches.tenantHints.set(found.client.id, found.client.tenant_id);
  return clientOfRecord(found);
}

/** A Resource as the token path caches it, its sealed secret opened once per container. */
export function cachedResource(runtime: Runtime, caches: TokenPathCaches, v: ResourceTokenView | undefined) {
  if (!v) return Promise.resolve(null);
  return resourceOfView(v, (sealed) => caches.openedSecrets.getOrLoad(sealed, () => runtime.secretBox.open(sealed)));
}

/**
 * The token path's batch-read planning (docs/tokens.md "Hot path and caching", docs/data-model.md
 * pattern 1): what a request will look up and this container does not hold fresh, folded into
 * ONE consistent BatchGetItem keyed from the request alone. It only fills caches.
 */
export function batchReadPlanner(s: PlannerSources): Pick<OAuthDeps, 'preload' | 'preloadIntrospection' | 'preloadBearer'> {
  const { runtime, caches } = s;
  const { clients, resources, tenantHints, preloadedRefreshTokens } = caches;
  const { config, db, now } = runtime;

  /** The identifier marker of a Resource to read, unless it is cached (the management API's is the default tenant's). */
  const markerToRead = (identifier: string, tenantHint: string) => {
    const tenantId = identifier === config.managementAudience ? DEFAULT_TENANT_ID : tenantHint;
    const rKey = resourceKey(tenantId, identifier);
    return isPossibleIdentifier(identifier) && resources.get(rKey, AHEAD) === undefined
      ? { rKey, key: keys.marker('RESOURCE_ID_URL', tenantId, identifier) }
      : undefined;
  };
  /**
   * A client item a preload read, cached as read. Always set, never `getOrLoad`: a copy within the
   * read-ahead of its expiry is still in the cache, and `getOrLoad` would keep it, so every request
   * until it expired would read the client again.
   */
  const takeClient = async (id: string, item: Record<string, unknown> | undefined) =>
    clients.set(id, cachedClient(caches, item ? await s.clientWithGrantsOfItem(item) : undefined));
  /** The same for a Resource whose identifier marker a preload read. */
  const takeResource = async (rKey: string, marker: Record<string, unknown>) =>
    resources.set(rKey, await cachedResource(runtime, caches, await s.tokenViewOfItem(marker)));
  /**
   * This request reads these soon-stale (or missing) entries now: the requests beside it keep the
   * cached copies until they expire instead of each reading them too (ttl-cache.ts `Lookahead`).
   */
  const rereading = (
    clientIds: readonly string[],
    markers: readonly { rKey: string }[],
    keyStates: readonly Key[],
    users: readonly UserTokenWant[] = [],
  ) => {
    for (const id of clientIds) clients.rereading(id);
    for (const m of markers) resources.rereading(m.rKey);
    for (const u of users) u.rereading();
    if (keyStates.length) runtime.keys.stateFeed?.rereading();
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
      if (login) userWants.push(s.userTokens.want(login.userId, login.sid, AHEAD));
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
    rereading(wantedClients, markers, keyStates, wantedUsers);
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

  return {
    /**
     * "At most one DynamoDB read per token": whatever of the client, the identifier marker of the
     * audience the grant's preload names (with its alternate spellings when it is read), and the
     * signing-key states this container does not hold fresh is read in ONE consistent
     * BatchGetItem, keyed from the request alone (docs/data-model.md pattern 1). A marker is the
     * one of the client's tenant as last seen (the default tenant for a client never seen, and
     * always for the management API); if that guess is wrong, `findResource` reads the right one
     * after authentication.
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
      const refresh = refreshToken === undefined ? undefined : s.refreshTokenWant(refreshToken);
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
      rereading(cached ? [] : [clientId], markers, keyStates);
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
}
