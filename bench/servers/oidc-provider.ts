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
 * - storage (argv[3]): `map`, in memory (bench/servers/oidc-adapters.ts says why not the built-in
 *   memory adapter), or `redis:<url>`, a real redis-server the bench starts.
 *
 * Runs as its own process (the bench pins it to one core); announces one JSON line (announce.ts)
 * `{ready, url, clientId, clientSecret, jwtResource, opaqueResource}` on stdout when listening.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import Provider, { errors } from 'oidc-provider';
import { announceReady, answerMemoryRequests } from './announce.ts';
import { mapAdapterFactory, redisAdapterFactory } from './oidc-adapters.ts';

const port = Number(process.argv[2] ?? 0);
/** `map` (in memory, default) or `redis:<url>`. */
const storage = process.argv[3] ?? 'map';
const redis = storage.startsWith('redis:') ? redisAdapterFactory(storage.slice('redis:'.length)) : undefined;
if (redis) await redis.client.ping();
const clientId = 'bench-client';
const clientSecret = 'bench-secret-0123456789abcdef0123456789abcdef';
const jwtResource = 'https://api.bench.example/';
const opaqueResource = 'https://opaque.bench.example/';
const scope = 'read:things write:things';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'bench-es256', alg: 'ES256', use: 'sig' };

const server = createServer();
await new Promise<void>((res) => server.listen(port, '127.0.0.1', res));
const { port: actual } = server.address() as { port: number };
const issuer = `http://127.0.0.1:${actual}`;

const provider = new Provider(issuer, {
  adapter: redis ? redis.Adapter : mapAdapterFactory(),
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
  ],
  jwks: { keys: [jwk] },
  scopes: ['read:things', 'write:things'],
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
server.on('request', provider.callback());

announceReady(
  `${JSON.stringify({ ready: true, url: issuer, clientId, clientSecret, jwtResource, opaqueResource, scope, storage: redis ? 'redis' : 'map' })}\n`,
);
answerMemoryRequests();
process.on('SIGTERM', () => {
  redis?.client.disconnect();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
