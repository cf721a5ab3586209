/**
 * A real external OpenID provider for the federation tests: node-oidc-provider (the certified
 * provider bench/servers/oidc-provider.ts measures against) on a loopback port, in this process.
 *
 * - one confidential client (`federation-client`) whose ID tokens are signed with the provider's
 *   current key (`alg` chosen at start: ES256, RS256, PS256 or EdDSA);
 * - `mintIdToken(claims)` issues an ID token through the provider's own `IdToken` model, exactly
 *   what its token endpoint would hand that client after a code flow (issuer, audience, iat, exp
 *   are the provider's);
 * - `rotateKeys()` replaces the signing key: a new provider instance with the same issuer behind
 *   the same port (oidc-provider reads its JWKS once, at construction);
 * - `requests` logs every request's path, so a test counts discovery and JWKS fetches on the
 *   provider's side, not on ours;
 * - `hang()` makes the provider accept connections and never answer; `serveJwks(body)` makes its
 *   JWKS endpoint answer with a given body (a huge one, say); `stop()` closes the port.
 * - with `login: { redirectUri }`, a second client (`login-client`, confidential, PKCE S256
 *   required) that signs in through the provider's development pages (any login, any password;
 *   then a "Continue" consent; "Cancel" answers `access_denied`), for federated login in
 *   Chromium; `accounts` sets the claims an account's ID token carries. The provider then keeps
 *   its sessions and codes in memory (oidc-provider's own adapter).
 */
import { generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Adapter } from 'oidc-provider';
import { boundedJsonGetter, CONNECT_TIMEOUT_MS, TOTAL_TIMEOUT_MS } from '#shared/federation/fetch-bounded.ts';
import { ProviderKeyCache, type ProviderKeyCacheOptions } from '#shared/federation/provider-keys.ts';

export type ProviderAlg = 'ES256' | 'RS256' | 'PS256' | 'EdDSA';

export interface ExternalProvider {
  issuer: string;
  clientId: string;
  jwksUri: string;
  /** The current signing key's id and its private and public halves. */
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  alg: ProviderAlg;
  /** Paths of every request the provider received, in order. */
  requests: string[];
  /** An ID token for the test client; `nonce` as a code flow would echo it. */
  mintIdToken(claims: Record<string, unknown> & { sub: string }, options?: { nonce?: string }): Promise<string>;
  rotateKeys(): void;
  hang(): void;
  /** From now on the JWKS endpoint answers `body` (undefined: the provider's own), with a length or chunked. */
  serveJwks(body: string | undefined, options?: { chunked?: boolean }): void;
  stop(): Promise<void>;
  /** With `login`: the sign-in client's credentials at the provider. */
  loginClient?: { clientId: string; clientSecret: string };
  /** With `login`: claims by account id (the login typed at the provider's page); `sub` is the account id. */
  accounts: Map<string, Record<string, unknown>>;
}

const CLIENT_ID = 'federation-client';
const LOGIN_CLIENT = { clientId: 'login-client', clientSecret: 'login-secret-0123456789abcdef0123456789abcdef' };

export interface ExternalProviderOptions {
  alg?: ProviderAlg;
  host?: string;
  /** Adds the sign-in client, whose one redirect URI is `redirectUri` (ours: `{base_url}/login/callback`). */
  login?: { redirectUri: string };
}

/** oidc-provider's storage interface, keeping nothing: these tests never read back a stored artefact. */
class NoStorage implements Adapter {
  async upsert() {}
  async find() {
    return undefined;
  }
  async findByUserCode() {
    return undefined;
  }
  async findByUid() {
    return undefined;
  }
  async consume() {}
  async destroy() {}
  async revokeByGrantId() {}
}

function keyPair(alg: ProviderAlg): { privateKey: KeyObject; publicKey: KeyObject } {
  if (alg === 'ES256') return generateKeyPairSync('ec', { namedCurve: 'P-256' });
  if (alg === 'EdDSA') return generateKeyPairSync('ed25519');
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

export async function startExternalProvider(options: ExternalProviderOptions = {}): Promise<ExternalProvider> {
  const alg = options.alg ?? 'ES256';
  const host = options.host ?? '127.0.0.1';
  const requests: string[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let hanging = false;
  let jwksOverride: { body: string; chunked: boolean } | undefined;
  let generation = 0;
  // Each provider's kids are its own, so another provider's token names a kid this one never had.
  const keyPrefix = randomUUID().slice(0, 8);
  const accounts = new Map<string, Record<string, unknown>>();
  const login = options.login;

  const server = createServer();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((res) => server.listen(0, host, res));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let provider: Provider;
  let callback: (req: IncomingMessage, res: ServerResponse) => void;
  const state = {} as ExternalProvider;

  const build = () => {
    generation += 1;
    const keys = keyPair(alg);
    const kid = `${keyPrefix}-${generation}`;
    const jwk = { ...keys.privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' };
    provider = new Provider(issuer, {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: 'federation-secret-0123456789abcdef0123456789abcdef',
          grant_types: ['authorization_code'],
          response_types: ['code'],
          redirect_uris: ['https://rp.federation.example/cb'],
          id_token_signed_response_alg: alg,
        },
        ...(login
          ? [
              {
                client_id: LOGIN_CLIENT.clientId,
                client_secret: LOGIN_CLIENT.clientSecret,
                grant_types: ['authorization_code'],
                response_types: ['code' as const],
                redirect_uris: [login.redirectUri],
                id_token_signed_response_alg: alg,
              },
            ]
          : []),
      ],
      jwks: { keys: [jwk] },
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['name', 'given_name', 'family_name', 'picture'],
      },
      enabledJWA: { idTokenSigningAlgValues: [alg] },
      ttl: { IdToken: 3600 },
      // Minting an ID token stores nothing; a store that keeps nothing keeps the provider quiet.
      // A sign-in needs its interaction, session and code kept: oidc-provider's memory adapter.
      // The account's claims in the ID token itself (as most providers do), not only at userinfo.
      ...(login ? { pkce: { required: () => true }, conformIdTokenClaims: false } : { adapter: NoStorage }),
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ ...accounts.get(sub), sub }) }),
      features: { devInteractions: { enabled: login !== undefined } },
    });
    // The provider's misconfigurations reach stderr; it logs nothing per request.
    provider.on('server_error', (_ctx, err) => process.stderr.write(`external provider server_error: ${String(err)}\n`));
    callback = provider.callback();
    Object.assign(state, { kid, alg, privateKey: keys.privateKey, publicKey: keys.publicKey });
  };
  build();

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    requests.push(new URL(req.url ?? '/', issuer).pathname);
    if (hanging) return; // accepted, never answered
    if (jwksOverride !== undefined && req.url?.startsWith('/jwks')) {
      const { body, chunked } = jwksOverride;
      if (!chunked)
        return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      // No length announced: the reader finds out the size only as it reads.
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < body.length; i += 16 * 1024) res.write(body.slice(i, i + 16 * 1024));
      res.end();
      return;
    }
    callback(req, res);
  });

  Object.assign(state, {
    issuer,
    clientId: CLIENT_ID,
    jwksUri: `${issuer}/jwks`,
    ...(login ? { loginClient: LOGIN_CLIENT } : {}),
    accounts,
    requests,
    async mintIdToken(claims: Record<string, unknown> & { sub: string }, options: { nonce?: string } = {}) {
      const client = await provider.Client.find(CLIENT_ID);
      const token = new provider.IdToken(claims, { client: client! });
      // The claims an `openid email profile` grant releases (the model masks the rest).
      Object.assign(token, { scope: 'openid email profile' });
      if (options.nonce !== undefined) token.set('nonce', options.nonce);
      return (await token.issue({ use: 'idtoken' })) as string;
    },
    rotateKeys: build,
    hang() {
      hanging = true;
    },
    serveJwks(body: string | undefined, options: { chunked?: boolean } = {}) {
      jwksOverride = body === undefined ? undefined : { body, chunked: options.chunked ?? false };
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
    },
  } satisfies Partial<ExternalProvider>);
  return state;
}

/** The cache a container would build (production bounds), reading through the bounded fetch; local mode by default. */
export function providerKeyCache(options: Partial<ProviderKeyCacheOptions> = {}): ProviderKeyCache {
  const allowLoopbackHttp = options.allowLoopbackHttp ?? true;
  const totalTimeoutMs = options.totalTimeoutMs ?? TOTAL_TIMEOUT_MS;
  return new ProviderKeyCache({
    fetchJson: boundedJsonGetter({ allowLoopbackHttp, connectTimeoutMs: CONNECT_TIMEOUT_MS, totalTimeoutMs }),
    ...options,
    allowLoopbackHttp,
    totalTimeoutMs,
  });
}
