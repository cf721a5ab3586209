import { basicAuth, FORM } from './api-event.ts';

/** A confidential client allowed one Resource with the scopes the token benchmark asks for. */
export interface TokenFixture {
  clientId: string;
  clientSecret: string;
  /** RFC 8707 `resource` (= our Resource's identifier_url, oidc-provider's resource indicator). */
  resource: string;
  scope: string;
  /** How the client was made: through the management API, or the Default Client as a stand-in. */
  source: 'management-api' | 'default-client';
  note?: string;
}

export const BENCH_RESOURCE = 'https://api.bench.example/';
export const BENCH_SCOPES = ['read:things', 'write:things'];

export async function fetchToken(url: string, clientId: string, clientSecret: string, params: Record<string, string>): Promise<string> {
  const res = await fetch(`${url}/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(clientId, clientSecret), 'content-type': FORM },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...params }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${url}/token: ${res.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { access_token: string }).access_token;
}

/**
 * Makes the benchmark's client on our service the way a user would: a Resource
 * `https://api.bench.example/` with scopes `read:things write:things` (ES256), a confidential
 * client with the client_credentials grant, authorized to the Resource with both scopes: the same
 * setup as the oidc-provider side. While the management API is not there yet (any step answers
 * non-2xx), the Default Client and the management API's own Resource stand in, asking for one
 * scope, which gives a token of the same shape and size class.
 */
export async function prepareOurClient(
  url: string,
  admin: { clientId: string; clientSecret: string; managementAudience: string },
): Promise<TokenFixture> {
  const fallback = (why: string): TokenFixture => ({
    clientId: admin.clientId,
    clientSecret: admin.clientSecret,
    resource: admin.managementAudience,
    scope: 'read:clients',
    source: 'default-client',
    note: `management API not usable yet (${why}); the Default Client and the management Resource stand in`,
  });
  let token: string;
  try {
    token = await fetchToken(url, admin.clientId, admin.clientSecret, { audience: admin.managementAudience });
  } catch (err) {
    throw new Error(`our /token does not answer for the Default Client: ${(err as Error).message}`);
  }
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${url}/identity/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  try {
    const resource = await call('POST', '/resources', {
      resource_type: 'api',
      resource_name: 'Bench API',
      resource_metadata: { identifier_url: BENCH_RESOURCE, signing_algorithm: 'ES256', token_lifetime: 3600 },
    });
    const rid = String(resource.id);
    const scopeIds: string[] = [];
    for (const name of BENCH_SCOPES) {
      const s = await call('POST', `/resources/${rid}/scopes`, { scope_name: name, scope_description: name });
      scopeIds.push(String(s.id));
    }
    const client = await call('POST', '/clients', {
      client_name: 'bench client',
      client_type: 'non_interactive',
      is_public: false,
      client_metadata: { grant_types: ['client_credentials'] },
    });
    const cid = String(client.id ?? client.client_id);
    const secret = client.client_secret;
    if (typeof secret !== 'string') throw new Error('POST /clients returned no client_secret');
    await call('POST', `/clients/${cid}/resources`, { resources: [rid] });
    await call('POST', `/clients/${cid}/permissions`, { permissions: [{ resource_id: rid, scopes: scopeIds }] });
    // Proves the fixture before any load runs against it.
    await fetchToken(url, cid, secret, { resource: BENCH_RESOURCE, scope: BENCH_SCOPES[0]! });
    return { clientId: cid, clientSecret: secret, resource: BENCH_RESOURCE, scope: BENCH_SCOPES[0]!, source: 'management-api' };
  } catch (err) {
    return fallback((err as Error).message);
  }
}
