import * as client from 'openid-client';
import { expect } from 'vitest';
import type { UserRecord } from '#shared/records/user-record.ts';
import { finishInteraction, type SeededSession } from '../browser/seed-session.ts';
import { basicAuth, type TestService } from '../service/local-service.ts';
import { managementCaller } from '../service/management-api.ts';

export const REDIRECT = 'https://app.example.com/callback';

export interface FlowClient {
  clientId: string;
  secret: string | undefined;
  /** Basic header of a confidential client; undefined for a public one. */
  auth: string | undefined;
  config: client.Configuration;
}

/** A client made through the management API with `redirect_uris`, and openid-client's configuration from our discovery. */
export async function flowClient(
  svc: TestService,
  o: { grant_types?: string[]; redirect_uris?: string[]; is_public?: boolean; is_first_party?: boolean } = {},
): Promise<FlowClient> {
  const call = managementCaller(svc.url, await svc.managementToken());
  const created = await call('POST', '/clients', {
    body: {
      client_name: 'authorize test',
      is_public: o.is_public ?? false,
      ...(o.is_first_party !== undefined ? { is_first_party: o.is_first_party } : {}),
      client_metadata: {
        grant_types: o.grant_types ?? ['authorization_code', 'refresh_token'],
        urls: { redirect_uris: o.redirect_uris ?? [REDIRECT] },
      },
    },
  });
  expect(created.status).toBe(201);
  const clientId: string = created.body.id;
  const secret: string | undefined = created.body.client_secret;
  const auth = secret ? client.ClientSecretBasic(secret) : client.None();
  const config = await client.discovery(new URL(svc.url), clientId, undefined, auth, { execute: [client.allowInsecureRequests] });
  return { clientId, secret, auth: secret ? basicAuth(clientId, secret) : undefined, config };
}

export interface Answer {
  status: number;
  location: string | null;
  headers: Headers;
  body: string;
}

/** One request of a browser that does not follow redirects. */
export async function browserGet(url: string, cookie?: string): Promise<Answer> {
  const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  return { status: res.status, location: res.headers.get('location'), headers: res.headers, body: await res.text() };
}

export const authorizeUrl = (svc: TestService, params: Record<string, string>) => `${svc.url}/authorize?${new URLSearchParams(params)}`;

/** The interaction id of a 303 to the login page. */
export function interactionOf(answer: Answer, svc: TestService): string {
  expect(answer.status, answer.body).toBe(303);
  const to = new URL(answer.location!);
  expect(`${to.origin}${to.pathname}`).toBe(`${svc.url}/login`);
  return to.searchParams.get('interaction')!;
}

/**
 * /authorize → (the pages' part, done by `finishInteraction` as login and consent would record it)
 * → /authorize/resume: the answer of the resume (a 303 to the client, or the form_post page).
 */
export async function authorizeThrough(
  svc: TestService,
  params: Record<string, string>,
  session: SeededSession,
  user: Pick<UserRecord, 'id'>,
  decision: 'allow' | 'deny' = 'allow',
): Promise<Answer> {
  const started = await browserGet(authorizeUrl(svc, params), session.header);
  const interaction = interactionOf(started, svc);
  await finishInteraction(svc.stack.runtime, interaction, session, user.id, decision);
  return browserGet(`${svc.url}/authorize/resume?interaction=${interaction}`, session.header);
}

/** The parameters of a redirect's query or fragment. */
export function responseParams(location: string): URLSearchParams {
  const url = new URL(location);
  return new URLSearchParams(url.hash ? url.hash.slice(1) : url.search);
}

/** A PKCE pair (RFC 7636 S256), as openid-client makes it. */
export async function pkce() {
  const verifier = client.randomPKCECodeVerifier();
  return { verifier, challenge: await client.calculatePKCECodeChallenge(verifier) };
}

/** POST /token with a form body, optionally with a Basic header. */
export async function postToken(svc: TestService, params: Record<string, string>, authorization?: string) {
  const res = await fetch(`${svc.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Whether the Default Client's /introspect says the token is active. */
export async function isActive(svc: TestService, token: string): Promise<boolean> {
  const res = await fetch(`${svc.url}/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(svc.clientId, svc.clientSecret) },
    body: new URLSearchParams({ token }),
  });
  return ((await res.json()) as { active: boolean }).active;
}

/** Redeems a code at /token as `c` authenticates (Basic for confidential, client_id for public). */
export const redeemCode = (
  svc: TestService,
  c: FlowClient,
  code: string,
  verifier: string | undefined,
  extra: Record<string, string> = {},
) =>
  postToken(
    svc,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      ...(verifier ? { code_verifier: verifier } : {}),
      ...(c.auth ? {} : { client_id: c.clientId }),
      ...extra,
    },
    c.auth,
  );
