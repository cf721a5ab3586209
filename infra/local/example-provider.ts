import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Provider from 'oidc-provider';

/**
 * `npm run example-provider`: an external OpenID provider on this machine for trying federation
 * locally (docs/federation.md "Walk-through"). It is node-oidc-provider with its development
 * sign-in pages (any username, no password), listening on 127.0.0.1 only, keeping everything in
 * memory. It knows one client, ours at the local service, and answers one extra route for the
 * walk-through: `GET /example/id-token?sub=…&email=…` returns an ID token for that client, as its
 * token endpoint would after a sign-in. Never run it anywhere but a developer's machine.
 *
 * Settings: `EXAMPLE_PROVIDER_PORT` (4000), `BASE_URL` of the local service (http://localhost:3000,
 * for the redirect URI `{BASE_URL}/login/callback`).
 */
const port = Number(process.env.EXAMPLE_PROVIDER_PORT ?? 4000);
const baseUrl = (process.env.BASE_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(/\/$/, '');
const issuer = `http://127.0.0.1:${port}`;
const CLIENT_ID = 'example-client';
const CLIENT_SECRET = 'example-secret-0123456789abcdef0123456789abcdef';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'example-1', alg: 'RS256', use: 'sig' };

/** An account per username typed at the sign-in page: `alice` is alice@example.com, verified. */
const claimsOf = (sub: string, email = `${sub}@example.com`) => ({
  sub,
  email,
  email_verified: true,
  name: sub.charAt(0).toUpperCase() + sub.slice(1),
});

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: [`${baseUrl}/login/callback`],
    },
  ],
  jwks: { keys: [jwk] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // PKCE S256 for every client (RFC 9700 §2.1.1), as the service sends it.
  pkce: { required: () => true },
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => claimsOf(sub) }),
  features: { devInteractions: { enabled: true } },
});
// The development pages announce themselves on stderr once; per-request noise is not wanted here.
provider.on('server_error', (_ctx, err) => process.stderr.write(`example provider: ${String(err)}\n`));
const callback = provider.callback();

const ID_TOKEN_PATH = '/example/id-token';
const SUB = /^[A-Za-z0-9._@-]{1,64}$/;

async function mintIdToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const params = new URL(req.url ?? '/', issuer).searchParams;
  const sub = params.get('sub') ?? '';
  const email = params.get('email') ?? undefined;
  if (!SUB.test(sub) || (email !== undefined && !/^[^\s@]{1,64}@[^\s@]{1,190}$/.test(email))) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('sub: 1 to 64 of A-Z a-z 0-9 . _ @ -; email: an address\n');
    return;
  }
  const client = await provider.Client.find(CLIENT_ID);
  const token = new provider.IdToken(claimsOf(sub, email), { client: client! });
  Object.assign(token, { scope: 'openid email profile' });
  res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end(`${await token.issue({ use: 'idtoken' })}\n`);
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url?.startsWith(ID_TOKEN_PATH)) {
    mintIdToken(req, res).catch((error: unknown) => res.writeHead(500).end(`${String(error)}\n`));
    return;
  }
  callback(req, res);
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(
    [
      `Example OpenID provider at ${issuer} (development sign-in: any username, no password).`,
      `  client_id ${CLIENT_ID}, client_secret ${CLIENT_SECRET}`,
      `  redirect URI ${baseUrl}/login/callback`,
      `  ID tokens for the walk-through: GET ${issuer}${ID_TOKEN_PATH}?sub=alice`,
      '',
    ].join('\n'),
  );
});
