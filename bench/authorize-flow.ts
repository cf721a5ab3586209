/**
 * `node --import tsx bench/authorize-flow.ts [--flows=N]`: the authorization-code flow without a
 * browser, ours and node-oidc-provider's side by side in one run.
 *
 * Both run in this process over loopback HTTP, one request at a time, alternating flow by flow so
 * a change of load on the machine shifts both alike. A "flow" is what a relying party does for a
 * browser that is already signed in and has consented: `GET /authorize` (`/auth` for
 * oidc-provider) with the session cookie, `prompt=none`, PKCE S256 → 303 with the code → `POST
 * /token` with the code and verifier → access + ID token. Each side's session comes from its own
 * login once: ours through the real /login and /consent pages over HTTP, oidc-provider's through
 * its interaction API (`interactionFinished` with a login and a Grant).
 *
 * Ours runs on DynamoDB Local (in memory) with a metered client: DynamoDB calls per step of our
 * flow, and of the interactive path a browser takes without `prompt=none` (/authorize → /login
 * (session skip) → /consent (grant skip) → /authorize/resume → /token). oidc-provider keeps its
 * state in memory (bench/servers/oidc-adapters.ts), so its numbers have no storage latency.
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Provider from 'oidc-provider';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { startLocalStack } from '../infra/local/local-stack.ts';
import { putUser } from '../test/support/store/user-items.ts';
import { basicAuth, FORM } from './lib/api-event.ts';
import { attachDdbMeter } from './lib/ddb-meter.ts';
import { median, percentile, round } from './lib/stats.ts';
import { mapAdapterFactory } from './servers/oidc-adapters.ts';

const flows = Number(process.argv.find((a) => a.startsWith('--flows='))?.split('=')[1] ?? 200);
const REDIRECT = 'https://app.bench.example/cb';
const PASSWORD = 'bench-Password-7-Lighthouse';

/** A cookie jar that ignores paths (sending a cookie to a path it was not set for is harmless here). */
class Jar {
  readonly #cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /max-age=0\b/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now()));
      if (!value || expired) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
  header = () => [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
}

async function get(url: string, jar: Jar): Promise<Response> {
  const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.take(res);
  return res;
}
async function postForm(url: string, jar: Jar, form: Record<string, string>): Promise<Response> {
  const res = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: jar.header(), 'content-type': FORM },
    body: new URLSearchParams(form),
  });
  jar.take(res);
  return res;
}
const locationOf = (res: Response, base: string) => {
  if (res.status !== 303 && res.status !== 302) throw new Error(`expected a redirect, got ${res.status}`);
  return new URL(res.headers.get('location')!, base).href;
};
const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};
const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)![1]!;

// ---- ours ------------------------------------------------------------------------------------
const adminId = randomUUID();
const adminSecret = randomBytes(32).toString('base64url');
const stack = await startLocalStack({
  port: 0,
  dataDir: null,
  tableName: `bench-authorize-${randomUUID()}`,
  stageThrottle: { rateLimit: 100_000, burstLimit: 100_000 },
  routeThrottles: 'stage-only',
  defaultClientId: adminId,
  defaultClientSecret: adminSecret,
  env: {},
});
const meter = attachDdbMeter(stack.runtime.db);
const ours = stack.url;

// ---- oidc-provider -----------------------------------------------------------------------------
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const server = createServer();
await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
const theirs = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const provider = new Provider(theirs, {
  adapter: mapAdapterFactory(),
  clients: [
    {
      client_id: 'bench-spa',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: [REDIRECT],
      id_token_signed_response_alg: 'ES256',
    },
  ],
  jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'bench', alg: 'ES256', use: 'sig' }] },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  features: { devInteractions: { enabled: false } },
});
const callback = provider.callback();
server.on('request', (req: IncomingMessage, res: ServerResponse) => {
  // Stands in for a login and consent page: the interaction ends with a login and a Grant.
  if (req.method === 'POST' && req.url?.startsWith('/bench/finish')) return void finishTheirs(req, res);
  callback(req, res);
});
async function finishTheirs(req: IncomingMessage, res: ServerResponse) {
  try {
    const details = await provider.interactionDetails(req, res);
    const grant = new provider.Grant({ accountId: 'bench-user', clientId: String(details.params.client_id) });
    grant.addOIDCScope('openid');
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: 'bench-user' }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  } catch (err) {
    res.writeHead(500).end(String(err));
  }
}

// ---- one login each ----------------------------------------------------------------------------
const admin = await tokenOf(ours, adminId, adminSecret, {
  grant_type: 'client_credentials',
  audience: `${ours}/identity/v1/`,
  scope: 'create:clients',
});
const created = await fetch(`${ours}/identity/v1/clients`, {
  method: 'POST',
  headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
  body: JSON.stringify({
    client_name: 'bench spa',
    is_public: true,
    // ES256 ID tokens like oidc-provider's client above, so both sides sign alike (RS256 is the default).
    client_metadata: { grant_types: ['authorization_code'], urls: { redirect_uris: [REDIRECT] }, id_token_signed_response_alg: 'ES256' },
  }),
});
const ourClient = ((await created.json()) as { id: string }).id;
const username = `bench_${randomUUID().slice(0, 8)}`;
await putUser(stack.runtime, { username, password_hash: await hashPassword(PASSWORD) });

const ourJar = new Jar();
{
  const { challenge } = pkce();
  const login = locationOf(await get(authorizeUrl(ours, '/authorize', ourClient, challenge, false), ourJar), ours);
  const page = await (await get(login, ourJar)).text();
  const consent = locationOf(await postForm(login, ourJar, { csrf_token: csrfOf(page), username, password: PASSWORD }), ours);
  const consentPage = await (await get(consent, ourJar)).text();
  const resume = locationOf(await postForm(consent, ourJar, { csrf_token: csrfOf(consentPage), decision: 'allow' }), ours);
  const back = locationOf(await get(resume, ourJar), ours);
  if (!new URL(back).searchParams.get('code')) throw new Error(`our login did not end with a code: ${back}`);
}
const theirJar = new Jar();
{
  const { challenge } = pkce();
  const interaction = locationOf(await get(authorizeUrl(theirs, '/auth', 'bench-spa', challenge, false), theirJar), theirs);
  await get(interaction, theirJar);
  let next = locationOf(await postForm(`${theirs}/bench/finish`, theirJar, {}), theirs);
  while (!next.startsWith(REDIRECT)) next = locationOf(await get(next, theirJar), theirs);
  if (!new URL(next).searchParams.get('code')) throw new Error(`oidc-provider's login did not end with a code: ${next}`);
}

function authorizeUrl(base: string, path: string, clientId: string, challenge: string, silent: boolean) {
  const q = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid',
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(silent ? { prompt: 'none' } : {}),
  });
  return `${base}${path}?${q}`;
}
async function tokenOf(base: string, id: string, secret: string, form: Record<string, string>) {
  const res = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(id, secret), 'content-type': FORM },
    body: new URLSearchParams(form),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** POST /token with a code and its verifier, as a public client. */
const redeem = (base: string, clientId: string, code: string, verifier: string) =>
  fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': FORM },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    }),
  });

/** One flow: authorize (prompt=none) → code → token. Returns the time of each step (ms). */
async function flow(base: string, path: string, clientId: string, jar: Jar): Promise<[number, number]> {
  const { verifier, challenge } = pkce();
  const t0 = performance.now();
  const back = new URL(locationOf(await get(authorizeUrl(base, path, clientId, challenge, true), jar), base));
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.href}`);
  const t1 = performance.now();
  const res = await redeem(base, clientId, code, verifier);

  const body = (await res.json()) as { id_token?: string };
  if (res.status !== 200 || !body.id_token) throw new Error(`token: ${res.status} ${JSON.stringify(body)}`);
  return [t1 - t0, performance.now() - t1];
}

// ---- side by side --------------------------------------------------------------------------------
for (let i = 0; i < 20; i++) {
  await flow(ours, '/authorize', ourClient, ourJar);
  await flow(theirs, '/auth', 'bench-spa', theirJar);
}
const o = { authorize: [] as number[], token: [] as number[], total: [] as number[] };
const t = { authorize: [] as number[], token: [] as number[], total: [] as number[] };
for (let i = 0; i < flows; i++) {
  for (const [side, run] of [
    [o, () => flow(ours, '/authorize', ourClient, ourJar)],
    [t, () => flow(theirs, '/auth', 'bench-spa', theirJar)],
  ] as const) {
    const [a, b] = await run();
    side.authorize.push(a);
    side.token.push(b);
    side.total.push(a + b);
  }
}
const stat = (xs: number[]) => `${round(median(xs))} ms (p90 ${round(percentile(xs, 90))})`;
console.log(`\nAuthorization-code flow, prompt=none with a session cookie, PKCE S256, ${flows} flows each, alternating:`);
console.log('| step | ours (DynamoDB Local) | oidc-provider (memory) | ours ÷ theirs |');
console.log('|---|---|---|---|');
for (const step of ['authorize', 'token', 'total'] as const) {
  console.log(`| ${step} | ${stat(o[step])} | ${stat(t[step])} | ${round(median(o[step]) / median(t[step]))}× |`);
}

// ---- DynamoDB calls per step (ours, warm) -------------------------------------------------------
async function metered<T>(label: string, step: () => Promise<T>): Promise<T> {
  const before = meter.snapshot();
  const out = await step();
  const used = meter.since(before);
  console.log(`| ${label} | ${used.calls} | ${JSON.stringify(used.byCommand)} |`);
  return out;
}
console.log('\nDynamoDB calls per step (ours, warm containers):');
console.log('| step | calls | by command |');
console.log('|---|---|---|');
{
  const { verifier, challenge } = pkce();
  const back = await metered(
    'GET /authorize (prompt=none) → code',
    async () => new URL(locationOf(await get(authorizeUrl(ours, '/authorize', ourClient, challenge, true), ourJar), ours)),
  );
  await metered('POST /token (authorization_code)', () =>
    redeem(ours, ourClient, back.searchParams.get('code')!, verifier).then((r) => r.text()),
  );
}
{
  const { verifier, challenge } = pkce();
  const login = await metered('GET /authorize (interactive) → /login', async () =>
    locationOf(await get(authorizeUrl(ours, '/authorize', ourClient, challenge, false), ourJar), ours),
  );
  const consent = await metered('GET /login (session) → /consent', async () => locationOf(await get(login, ourJar), ours));
  const resume = await metered('GET /consent (grant remembered) → resume', async () => locationOf(await get(consent, ourJar), ours));
  const back = await metered('GET /authorize/resume → code', async () => new URL(locationOf(await get(resume, ourJar), ours)));
  await metered('POST /token (authorization_code)', () =>
    redeem(ours, ourClient, back.searchParams.get('code')!, verifier).then((r) => r.text()),
  );
}

server.close();
server.closeAllConnections();
await stack.stop();
