import { basicAuth, FORM } from './api-event.ts';
import { fetchToken } from './fixture.ts';

/** `n` access tokens from `url`/token, `concurrency` requests at a time (the servers are idle: nothing is being measured). */
export async function fetchTokens(
  url: string,
  clientId: string,
  clientSecret: string,
  params: Record<string, string>,
  n: number,
  concurrency = 16,
): Promise<string[]> {
  const out: string[] = new Array<string>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fetchToken(url, clientId, clientSecret, params);
      }
    }),
  );
  return out;
}

/** RFC 7009 revocation of each token by its client (`path`: ours `/revoke`, oidc-provider `/token/revocation`). */
export async function revokeTokens(
  url: string,
  path: string,
  clientId: string,
  clientSecret: string,
  tokens: readonly string[],
): Promise<void> {
  for (const token of tokens) {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: basicAuth(clientId, clientSecret), 'content-type': FORM },
      body: new URLSearchParams({ token }),
    });
    await res.text();
    if (res.status !== 200) throw new Error(`POST ${url}${path}: ${res.status}`);
  }
}

/** Introspects `token` once and checks the answer's `active` (a pool must be what its label says before it is measured). */
export async function expectActive(
  url: string,
  path: string,
  clientId: string,
  clientSecret: string,
  token: string,
  active: boolean,
): Promise<void> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: basicAuth(clientId, clientSecret), 'content-type': FORM },
    body: new URLSearchParams({ token }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${url}${path}: ${res.status} ${text.slice(0, 200)}`);
  const got = (JSON.parse(text) as { active?: unknown }).active;
  if (got !== active) throw new Error(`POST ${url}${path}: active ${String(got)}, expected ${active} (${text.slice(0, 200)})`);
}
