import { expect } from 'vitest';
import { base32Decode, totp } from '#shared/crypto/totp.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { consentsRepository } from '#shared/store/sessions/consents-repository.ts';
import { interactionsRepository, type NewInteraction } from '#shared/store/sessions/interactions-repository.ts';
import { refreshTokensRepository } from '#shared/store/sessions/refresh-tokens-repository.ts';
import { sessionsRepository } from '#shared/store/sessions/sessions-repository.ts';
import { GOOD_PASSWORD, usersFixture } from '../management/users-fixture.ts';

/** Where the test interactions return: a page of this service anyone may GET. */
export const TEST_RETURN_TO = '/.well-known/openid-configuration';

/**
 * The local service with what the hosted-page tests need (docs/browser-flows.md): users with a
 * password (and an authenticator), clients, Resources, and interactions put straight into the
 * table with the pinned shape, as `/authorize` and `/device` make them.
 */
export async function pagesFixture(env: Record<string, string> = {}) {
  const fx = await usersFixture(env);
  const { runtime } = fx.svc.stack;
  const { db, config, now } = runtime;
  const interactions = interactionsRepository(db, config.tableName, now);
  let n = 0;
  return {
    ...fx,
    url: fx.svc.url,
    interactions,
    sessions: sessionsRepository(db, config.tableName, now),
    grants: consentsRepository(db, config.tableName, now, refreshTokensRepository(db, config.tableName, now)),
    /** A user of the default tenant with GOOD_PASSWORD and a fresh username. */
    async createLoginUser(extra: Record<string, unknown> = {}) {
      const user = await fx.createUser({ username: `pages_user_${++n}_${Date.now()}`, password: GOOD_PASSWORD, ...extra });
      return { ...user, password: GOOD_PASSWORD } as Record<string, any> & { id: string; username: string; password: string };
    },
    /** Enrols a TOTP authenticator as the user (its own token and password); returns the code of now (or of `at`). */
    async enrollOtp(userId: string, password = GOOD_PASSWORD): Promise<(at?: Date) => string> {
      const res = await fx.call('POST', `/users/${userId}/otp`, { token: await fx.userToken(userId), body: { password } });
      expect(res.status).toBe(201);
      const secret = base32Decode(res.body.secret)!;
      return (at = now()) => totp(secret, at);
    },
    /** An interaction as a creator stores it; `return_to` defaults to TEST_RETURN_TO. */
    interaction(clientId: string, fields: Partial<NewInteraction> = {}) {
      return interactions.createInteraction({
        kind: 'authorize',
        tenant_id: DEFAULT_TENANT_ID,
        client_id: clientId,
        scopes: ['openid', 'profile'],
        prompt: [],
        return_to: TEST_RETURN_TO,
        payload: { test: true },
        ...fields,
      });
    },
  };
}

export type PagesFixture = Awaited<ReturnType<typeof pagesFixture>>;

export interface PageReply {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
  setCookie: string[];
}

/**
 * A minimal browser over fetch for the page tests that need exact statuses and headers: keeps
 * cookies (name → value; a Max-Age=0 cookie is dropped), never follows redirects.
 */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  /** `userAgent`: sent as `User-Agent` (the security events record it). */
  constructor(
    readonly base: string,
    readonly userAgent?: string,
  ) {}

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<PageReply> {
    const res = await fetch(path.startsWith('http') ? path : `${this.base}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(this.cookies.size ? { cookie: this.header() } : {}),
        ...(this.userAgent ? { 'user-agent': this.userAgent } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    const setCookie = res.headers.getSetCookie();
    for (const c of setCookie) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      if (/Max-Age=0/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(i + 1));
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location'), setCookie };
  }

  get = (path: string) => this.request('GET', path);
  post = (path: string, form: Record<string, string>) => this.request('POST', path, form);
}

/** The hidden CSRF token of a page's form. */
export const csrfIn = (html: string): string => {
  const token = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error(`no csrf_token in the page: ${html.slice(0, 500)}`);
  return token;
};

/** A hidden input's value. */
export const hiddenIn = (html: string, name: string): string | undefined => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
