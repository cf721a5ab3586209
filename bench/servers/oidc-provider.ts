/**
 * The reference: node-oidc-provider (the certified OpenID provider most Node services are measured
 * against), configured as close to our `/token` as it allows:
 *
 * - one confidential client, `client_secret_basic`, grant `client_credentials` only;
 * - RFC 8707 resource indicators: `resource=https://api.bench.example/` is an ES256 JWT access token
 *   resource (RFC 9068 `at+jwt`), like ours;
 * - introspection on. oidc-provider refuses to introspect structured (JWT) tokens
 *   (lib/shared/reject_structured_tokens.js), so the introspection benchmark asks for a token of a
 *   second resource, `https://opaque.bench.example/`, whose tokens are opaque and live in the
 *   provider's storage: that is the only token oidc-provider can introspect.
 * - refresh tokens (section 9's refresh comparison): a second confidential client, `bench-refresh`
 *   (grants `authorization_code` and `refresh_token`), and refresh tokens that always rotate
 *   (`rotateRefreshToken: true`, as ours do). Its refresh tokens come from an authorization code
 *   flow, which a load generator cannot drive; `POST /bench/refresh-tokens?n=N` (this process only,
 *   never oidc-provider's) makes N through the provider's own models: for each a Grant
 *   (`openid offline_access`) of account `bench-user` and a RefreshToken of that grant, saved
 *   through the same adapter, exactly what the code grant would have stored.
 * - storage (argv[3]): `map`, in memory (bench/servers/oidc-adapters.ts says why not the built-in
 *   memory adapter), `redis:<url>`, a real redis-server the bench starts, or `dynamodb:<endpoint>`,
 *   a DynamoDB Local of its own the bench starts (oidc-dynamodb-adapter.ts; its table is made here).
 *
 * Runs as its own process (the bench pins it to one core); announces one JSON line (announce.ts)
 * `{ready, url, clientId, clientSecret, jwtResource, opaqueResource, refreshClientId, refreshClientSecret}`
 * on stdout when listening.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import Provider, { errors } from 'oidc-provider';
import { announceReady, answerMemoryRequests } from './announce.ts';
import { mapAdapterFactory, redisAdapterFactory } from './oidc-adapters.ts';
import { dynamoDbAdapterFactory } from './oidc-dynamodb-adapter.ts';

const port = Number(process.argv[2] ?? 0);
/** `map` (in memory, default), `redis:<url>` or `dynamodb:<endpoint>`. */
const storage = process.argv[3] ?? 'map';
const redis = storage.startsWith('redis:') ? redisAdapterFactory(storage.slice('redis:'.length)) : undefined;
if (redis) await redis.client.ping();
const dynamodb = storage.startsWith('dynamodb:')
  ? dynamoDbAdapterFactory({ endpoint: storage.slice('dynamodb:'.length), tableName: 'oidc-provider' })
  : undefined;
await dynamodb?.createTable();
const clientId = 'bench-client';
const clientSecret = 'bench-secret-0123456789abcdef0123456789abcdef';
const jwtResource = 'https://api.bench.example/';
const opaqueResource = 'https://opaque.bench.example/';
const scope = 'read:things write:things';
const refreshClientId = 'bench-refresh';
const refreshClientSecret = 'bench-refresh-secret-0123456789abcdef0123456789ab';
const refreshScope = 'openid offline_access';
const account = 'bench-user';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'bench-es256', alg: 'ES256', use: 'sig' };

const server = createServer();
await new Promise<void>((res) => server.listen(port, '127.0.0.1', res));
const { port: actual } = server.address() as { port: number };
const issuer = `http://127.0.0.1:${actual}`;

const provider = new Provider(issuer, {
  adapter: redis?.Adapter ?? dynamodb?.Adapter ?? mapAdapterFactory(),
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      // The provider's only key is P-256; OIDC's RS256 default would make the client invalid.
      id_token_signed_response_alg: 'ES256',
      scope,
    },
    {
      client_id: refreshClientId,
      client_secret: refreshClientSecret,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: ['https://client.bench.example/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    },
  ],
  jwks: { keys: [jwk] },
  scopes: ['openid', 'offline_access', 'read:things', 'write:things'],
  // Every refresh rotates, as ours does (one-time refresh tokens, reuse kills the grant).
  rotateRefreshToken: true,
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => jwtResource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resourceIndicator) => {
        if (resourceIndicator === jwtResource) {
          return { scope, audience: jwtResource, accessTokenTTL: 3600, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        }
        if (resourceIndicator === opaqueResource) {
          return { scope, audience: opaqueResource, accessTokenTTL: 3600, accessTokenFormat: 'opaque' };
        }
        throw new errors.InvalidTarget();
      },
    },
  },
});
// No per-request console noise; errors still reach stderr through the process's default handler.
provider.on('server_error', (_ctx, err) => process.stderr.write(`oidc-provider server_error: ${String(err)}\n`));
const callback = provider.callback();
server.on('request', (req, res) => {
  if (req.method === 'POST' && req.url?.startsWith('/bench/refresh-tokens?')) return void mintRefreshTokens(req.url, res);
  callback(req, res);
});

/** Refresh tokens as the authorization code grant stores them (see the header). */
async function mintRefreshTokens(url: string, res: import('node:http').ServerResponse) {
  try {
    const n = Math.min(1000, Number(new URL(url, issuer).searchParams.get('n') ?? 1));
    const client = await provider.Client.find(refreshClientId);
    const now = Math.floor(Date.now() / 1000);
    const tokens: string[] = [];
    for (let i = 0; i < n; i++) {
      const grant = new provider.Grant({ accountId: account, clientId: refreshClientId });
      grant.addOIDCScope(refreshScope);
      const grantId = await grant.save();
      const rt = new provider.RefreshToken({
        accountId: account,
        client: client!,
        grantId,
        gty: 'authorization_code',
        scope: refreshScope,
        authTime: now,
        iiat: now,
        rotations: 0,
        expiresWithSession: false,
      });
      tokens.push(await rt.save());
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(tokens));
  } catch (err) {
    res.writeHead(500).end(String(err));
  }
}

announceReady(
  `${JSON.stringify({ ready: true, url: issuer, clientId, clientSecret, jwtResource, opaqueResource, scope, refreshClientId, refreshClientSecret, refreshScope, storage: redis ? 'redis' : dynamodb ? 'dynamodb' : 'map' })}\n`,
);
answerMemoryRequests();
process.on('SIGTERM', () => {
  redis?.client.disconnect();
  dynamodb?.client.destroy();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
