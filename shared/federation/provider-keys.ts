import { createLocalJWKSet, createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import * as v from 'valibot';
import { ProviderError } from './federation-errors.ts';
import type { FetchJson } from './fetch-bounded.ts';
import { fetchProviderMetadata, type ProviderMetadata } from './provider-metadata.ts';
import { checkProviderUrl, type UrlPolicy } from './provider-url.ts';

/**
 * The per-container cache of external providers' keys (docs/federation.md "Reading a provider").
 *
 * Each provider gets its own jose remote JWK Set (`createRemoteJWKSet`), which already does what
 * the issue asks of a refresh: the set is re-read after `cacheMaxAge` (10 min), and on a `kid` it
 * does not hold at most once per `cooldownDuration` (30 s, jose's default), concurrent misses
 * sharing the one read in flight. What jose lacks is wrapped here: its reads go through our
 * bounded fetch (URL policy, connect and total timeout, size bound) and a key-count bound; the
 * number of providers is bounded; and a provider whose last read failed is not read again for
 * `failureBackoffMs` (its fresh cached keys, if any, still verify), so a provider that hangs
 * costs one timeout per back-off, not one per request.
 *
 * A provider is its issuer plus, when configured, its JWKS URL: the cache key holds both, so one
 * provider's keys never verify another's tokens, even when two are configured with one `jwks_uri`.
 */

/** Microsoft's common JWKS (a dozen RSA keys with certificate chains) is about 15 KB. */
export const JWKS_MAX_BYTES = 128 * 1024;
/** Providers publish 2 to 4 keys (current, next, previous); a dozen is the most seen in the wild. */
export const MAX_KEYS_PER_SET = 32;
/** Configured providers a container keeps keys of (each set at most JWKS_MAX_BYTES). */
export const MAX_PROVIDERS = 100;
/** jose's default: at most one read per 30 s on unknown `kid`s, whatever the rate of such tokens. */
export const REFRESH_COOLDOWN_MS = 30_000;
/** jose's default: a set older than 10 min is re-read before use. */
export const KEYS_MAX_AGE_MS = 600_000;
/** The discovery document is re-read with the keys' entry, after an hour. */
export const METADATA_MAX_AGE_MS = 3_600_000;
export const FAILURE_BACKOFF_MS = 5_000;

export interface ProviderSource {
  /** The issuer exactly as configured (compared with `iss` and the discovery document's `issuer`). */
  issuer: string;
  /** A configured JWKS URL: then the discovery document is not read. */
  jwksUri?: string;
  /** A configured discovery document URL, instead of `{issuer}/.well-known/openid-configuration`. */
  discoveryUrl?: string;
}

export interface ProviderKeys {
  issuer: string;
  jwksUri: string;
  /** The discovery document, when the keys were found through it. */
  metadata?: ProviderMetadata;
  /** jose's key resolver, this provider's keys only. */
  getKey: JWTVerifyGetKey;
}

export interface ProviderKeyCacheOptions extends UrlPolicy {
  fetchJson: FetchJson;
  maxProviders?: number;
  maxKeysPerSet?: number;
  cooldownMs?: number;
  keysMaxAgeMs?: number;
  metadataMaxAgeMs?: number;
  failureBackoffMs?: number;
  /** The fetch's own total timeout; jose's is set above it so that ours, with its reason, fires first. */
  totalTimeoutMs: number;
  clock?: () => number;
}

/** RFC 7517 §5: `keys`, an array of JWKs; each must at least say its `kty`. */
const JwkSetSchema = (maxKeys: number) =>
  v.object({
    keys: v.pipe(
      v.array(v.looseObject({ kty: v.pipe(v.string(), v.maxLength(16)), kid: v.optional(v.pipe(v.string(), v.maxLength(256))) })),
      v.maxLength(maxKeys),
    ),
  });

interface Entry {
  keys: Promise<ProviderKeys>;
  remote?: ReturnType<typeof createRemoteJWKSet>;
  createdAt: number;
  failure?: { at: number; error: ProviderError };
}

export class ProviderKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly clock: () => number;

  constructor(private readonly options: ProviderKeyCacheOptions) {
    this.clock = options.clock ?? (() => Date.now());
  }

  /** The provider's keys: read on first use, then from this container's cache. */
  keysOf(source: ProviderSource): Promise<ProviderKeys> {
    const key = `${source.issuer}\u0000${source.jwksUri ?? ''}\u0000${source.discoveryUrl ?? ''}`;
    const now = this.clock();
    const found = this.entries.get(key);
    if (found) {
      const backingOff = found.failure !== undefined && now - found.failure.at < this.backoffMs;
      if (backingOff && !found.remote?.fresh) return Promise.reject(found.failure!.error);
      // A discovery read that failed (no key set yet) is tried again once the back-off is over.
      const failedDiscovery = found.failure !== undefined && !found.remote;
      if (!failedDiscovery && now - found.createdAt < (this.options.metadataMaxAgeMs ?? METADATA_MAX_AGE_MS)) {
        // Most recently used last: the bound drops the least recently used provider.
        this.entries.delete(key);
        this.entries.set(key, found);
        return found.keys;
      }
      this.entries.delete(key);
    }
    const entry: Entry = { createdAt: now, keys: Promise.resolve(undefined as never) };
    entry.keys = this.load(source, entry);
    // A failed discovery stays as the entry's failure (the back-off above), never as a rejected
    // promise reused for the hour; a failure that is not the provider's drops the entry.
    entry.keys.catch((error: unknown) => {
      if (error instanceof ProviderError) entry.failure = { at: this.clock(), error };
      else if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    if (this.entries.size >= (this.options.maxProviders ?? MAX_PROVIDERS)) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, entry);
    return entry.keys;
  }

  private get backoffMs(): number {
    return this.options.failureBackoffMs ?? FAILURE_BACKOFF_MS;
  }

  /** Providers cached (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  private async load(source: ProviderSource, entry: Entry): Promise<ProviderKeys> {
    const policy = { allowLoopbackHttp: this.options.allowLoopbackHttp };
    checkProviderUrl(source.issuer, policy);
    const metadata =
      source.jwksUri === undefined
        ? await fetchProviderMetadata(source.issuer, this.options.fetchJson, policy, source.discoveryUrl)
        : undefined;
    const jwksUri = checkProviderUrl(source.jwksUri ?? metadata!.jwks_uri, policy);
    const remote = createRemoteJWKSet(jwksUri, {
      cooldownDuration: this.options.cooldownMs ?? REFRESH_COOLDOWN_MS,
      cacheMaxAge: this.options.keysMaxAgeMs ?? KEYS_MAX_AGE_MS,
      timeoutDuration: this.options.totalTimeoutMs + 1000,
      [customFetch]: async (url: string) => Response.json(await this.readJwks(new URL(url))),
    });
    entry.remote = remote;
    const getKey: JWTVerifyGetKey = async (header, token) => {
      const failure = entry.failure;
      if (failure && this.clock() - failure.at < this.backoffMs) {
        // Backing off: no read at all; the keys still fresh in the cache verify, an unknown kid is refused.
        const held = remote.fresh ? remote.jwks() : undefined;
        if (!held) throw failure.error;
        return createLocalJWKSet(held)(header, token);
      }
      try {
        return await remote(header, token);
      } catch (error) {
        if (error instanceof ProviderError) entry.failure = { at: this.clock(), error };
        throw error;
      }
    };
    return { issuer: source.issuer, jwksUri: jwksUri.href, ...(metadata ? { metadata } : {}), getKey };
  }

  private async readJwks(url: URL): Promise<unknown> {
    const body = await this.options.fetchJson(url, { maxBytes: JWKS_MAX_BYTES });
    const maxKeys = this.options.maxKeysPerSet ?? MAX_KEYS_PER_SET;
    const parsed = v.safeParse(JwkSetSchema(maxKeys), body);
    if (!parsed.success) {
      const tooMany = parsed.issues[0].type === 'max_length' && parsed.issues[0].path?.length === 1;
      throw new ProviderError(
        'bad_jwks',
        tooMany
          ? `The JWKS at ${url.origin}${url.pathname} holds more than ${maxKeys} keys.`
          : `The JWKS at ${url.origin}${url.pathname} is not a JWK Set.`,
      );
    }
    return parsed.output;
  }
}
